"""Code intelligence: definitions and import-aware usages of Python symbols across a repository."""

from analysis.intel.index import CodeIndex
from analysis.intel.models import Definition, Reference, UsageResult
from analysis.intel.signatures import BindResult, Parameter, ParamKind, Signature

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
