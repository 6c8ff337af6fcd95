"""A set of common utilities used within the environments.

These are not intended as API functions, and will not remain stable over time.
"""

# These submodules should not have any import-time dependencies.
# We want this since we use `utils` during our import-time sanity checks
# that verify that our dependencies are actually present.
from gymnasium.utils.colorize import colorize
from gymnasium.utils.ezpickle import EzPickle
from gymnasium.utils.record_constructor import RecordConstructorArgs

__all__ = ["colorize", "EzPickle", "RecordConstructorArgs"]
