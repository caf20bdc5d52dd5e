"""Configuration shared by every test: hypothesis profiles.

``nucleo`` (the default) has no per-example deadline, because the first example of a property
builds pydantic models and JSON schemas, which is slow once and fast afterwards; ``thorough``
(``HYPOTHESIS_PROFILE=thorough``) runs ten times as many examples, for CI or before a release.
"""

import os

from hypothesis import settings

settings.register_profile("nucleo", deadline=None)
settings.register_profile("thorough", parent=settings.get_profile("nucleo"), max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "nucleo"))
