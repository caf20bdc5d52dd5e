"""The search layer: `ToolIndex`, ranked search over a catalog of `ToolSpec`s.

Knows nothing of thinkers or admission: it ranks what it is given. The ``search_tools``
meta-tool (in the hub) sends what it finds through the admission door.
"""

from nucleo_core.search.errors import ToolRecordError
from nucleo_core.search.hit import ToolSearchHit
from nucleo_core.search.index import ToolIndex

__all__ = ["ToolIndex", "ToolRecordError", "ToolSearchHit"]
