"""Breaking changes beyond stale calls: `async-mismatch`, `property-mismatch`, `override-mismatch`.

Each compares the functions of a changed file before and after the PR, then judges the uses the code
index resolves (or the class hierarchy it knows) against the new form.
"""

from prscope.analysis.checks.mismatch.async_mismatch import check_async_mismatch
from prscope.analysis.checks.mismatch.override_mismatch import check_override_mismatch
from prscope.analysis.checks.mismatch.property_mismatch import check_property_mismatch

__all__ = ["check_async_mismatch", "check_override_mismatch", "check_property_mismatch"]
