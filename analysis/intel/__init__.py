"""Code intelligence: definitions and import-aware usages of Python symbols across a repository."""

from prscope.analysis.intel.index import CodeIndex
from prscope.analysis.intel.models import Definition, Reference, UsageResult
from prscope.analysis.intel.signatures import BindResult, Parameter, ParamKind, Signature

__all__ = [
    "BindResult",
    "CodeIndex",
    "Definition",
    "ParamKind",
    "Parameter",
    "Reference",
    "Signature",
    "UsageResult",
]
