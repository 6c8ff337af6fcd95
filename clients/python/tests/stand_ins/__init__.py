"""Faithful, standard-library-only stand-ins of the five trainer frameworks' interfaces.

Each module copies exactly the classes, signatures and return shapes a harness-gym shim touches, with a
header citing the repository, the commit read and the line ranges copied (see docs/TRAINING.md). No module
here imports torch, pydantic, ray or any framework package.

A shim imports its framework lazily under the framework's real module path (``verl.experimental.agent_loop``,
``gem``, ``openrlhf.utils.agent``, ``trl.trainer.grpo_trainer``, ``verifiers``); ``installed(name)``
registers a stand-in under those paths in ``sys.modules`` for the duration of a test and removes them after.
"""
import contextlib
import importlib
import sys
import types
from typing import Dict, Iterator, List

#: stand-in module -> the real module paths it answers for (every parent package is created empty).
MODULE_PATHS: Dict[str, List[str]] = {
    'roll': [
        'gem',
        'gem.core',
        'gem.envs.registration',
        'gem.utils.constants',
        'roll.utils.constants',
    ],
    'openrlhf': ['openrlhf.utils.agent'],
    'trl': ['trl.trainer.grpo_trainer', 'trl.generation.vllm_generation'],
    'verifiers': [
        'verifiers',
        'verifiers.legacy',
        'verifiers.legacy.types',
        'verifiers.legacy.decorators',
        'verifiers.legacy.envs.environment',
        'verifiers.legacy.envs.multiturn_env',
        'verifiers.legacy.rubrics.rubric',
        'verifiers.legacy.utils.env_utils',
    ],
}


@contextlib.contextmanager
def installed(name: str) -> Iterator[types.ModuleType]:
    """Make ``import <real path>`` resolve to the stand-in ``name`` inside the block."""
    module = importlib.import_module(f'{__name__}.{name}')
    added: List[str] = []
    for path in MODULE_PATHS[name]:
        parts = path.split('.')
        for i in range(1, len(parts)):
            parent = '.'.join(parts[:i])
            if parent not in sys.modules:
                pkg = types.ModuleType(parent)
                pkg.__path__ = []  # a package, so child imports resolve through sys.modules
                sys.modules[parent] = pkg
                added.append(parent)
        if path in sys.modules and path not in added:
            raise RuntimeError(f'{path} is already imported; refusing to shadow it')
        sys.modules[path] = module
        added.append(path)
        parent_name, _, child = path.rpartition('.')
        if parent_name:
            setattr(sys.modules[parent_name], child, module)
    try:
        yield module
    finally:
        for path in reversed(added):
            sys.modules.pop(path, None)
