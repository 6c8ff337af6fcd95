"""The verifiers v1 taskset (harness_gym.adapters.verifiers) against vendored verifiers and prime-rl source.

Vendored verbatim (clients/python/tests/vendor/{verifiers,prime-rl}/VENDOR.json):
PrimeIntellect-ai/verifiers a60a606ecc4d309247edf9ff92c3eabca362781f and PrimeIntellect-ai/prime-rl
559b44772e471d1538537b8805cc77f3824a5e64.

What runs and what is read:

- verifiers v1 needs pydantic v2, ``pydantic_config`` and ``openai``; Debian has pydantic 1.10 only. The
  vendored modules that import without them run for real: ``verifiers/v1/taskset.py`` (the ``Taskset``
  base: ``__iter__``, ``head``, ``shuffle``, ``task_type``) and ``verifiers/v1/utils/generic.py``. The
  pydantic models the adapter subclasses (``TaskData``, ``TasksetConfig``, ``EnvConfig``, ``AgentConfig``)
  are pydantic 1.10 models with the vendored fields, and ``Env``, ``Agents``, ``Interaction``, ``Segment``
  and ``Trace`` are small fakes with the vendored semantics; each of those is pinned to the vendored
  source by :class:`InterfaceTest` (an AST read: names, parameters, async-ness, fields).
- The env plays real episodes against the harness-gym server under test (support.server_url()).
- The prime-rl TOML in docs/training/verifiers.md is parsed with tomli and every table and key is looked up
  in the vendored config classes by AST (prime-rl's configs import pydantic v2 and verifiers.v1).
"""

import ast
import asyncio
import contextlib
import importlib
import importlib.util
import json
import os
import re
import sys
import types
import unittest
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Generic, List, Optional, TypeVar

import support

from harness_gym.train import EnvPool, close_shared_pools, row_reset_item

VENDOR = os.path.join(support.HERE, "vendor")
VF_ROOT = os.path.join(VENDOR, "verifiers")
PRIME_ROOT = os.path.join(VENDOR, "prime-rl")
ADAPTER = os.path.join(support.PACKAGE_ROOT, "harness_gym", "adapters", "verifiers.py")
EXAMPLE = os.path.join(support.PACKAGE_ROOT, "examples", "verifiers", "harness_gym_env")
DOC = os.path.join(os.path.dirname(os.path.dirname(support.PACKAGE_ROOT)), "docs", "training", "verifiers.md")
COMPONENTS = {"accuracy", "effectiveness", "hook_compliance", "tool_rationality", "skill_selection"}


# --- verifiers.v1 as far as it imports here -----------------------------------------------------------


def _load_file(name: str, path: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@dataclass
class Reward:
    score: float
    weight: float = 1.0


@dataclass
class Error:
    type: str
    message: str


@dataclass
class Trace:
    """verifiers/v1/trace.py's Trace, the members the env touches (InterfaceTest pins them)."""

    info: Dict[str, Any] = field(default_factory=dict)
    rewards: Dict[str, Reward] = field(default_factory=dict)
    metrics: Dict[str, float] = field(default_factory=dict)
    ok: bool = True
    stop_condition: Optional[str] = None
    is_completed: bool = False
    errors: List[Error] = field(default_factory=list)

    @property
    def has_error(self) -> bool:
        return not self.ok

    @property
    def reward(self) -> float:
        return sum(r.score * r.weight for r in self.rewards.values())

    def record_metric(self, name: str, value: float) -> None:
        self.metrics[name] = float(value)

    def record_metrics(self, values: Any) -> None:
        for name, value in values.items():
            self.record_metric(name, value)

    def record_reward(self, name: str, value: float, weight: float = 1.0) -> None:
        self.rewards[name] = Reward(float(value), float(weight))

    def stop(self, condition: str) -> None:
        self.is_completed = True
        if self.stop_condition is None:
            self.stop_condition = condition

    def record_error(self, error: Exception) -> None:
        self.errors.append(Error(type(error).__name__, str(error)))
        self.ok = False
        self.stop("error")


@dataclass(frozen=True)
class Segment:
    messages: List[Any]
    terminated: bool = False


class Interaction:
    """verifiers/v1/agent.py's Interaction: the env is the user; a policy answers each turn."""

    def __init__(self, policy: Any, max_turns: Optional[int]) -> None:
        self.trace = Trace()
        self.policy, self.max_turns = policy, max_turns
        self.turns: List[Any] = []
        self.closed = False

    async def turn(self, message: Any = None) -> Segment:
        if self.closed or self.trace.is_completed:
            raise RuntimeError("the exchange is over")
        if self.max_turns is not None and len(self.turns) >= self.max_turns:
            self.trace.stop("max_turns")
            return Segment(messages=[], terminated=True)
        self.turns.append(message)
        return Segment(messages=[self.policy(self, message)])


class Agent:
    def __init__(self, policy: Any, max_turns: Optional[int]) -> None:
        self.policy, self.max_turns = policy, max_turns
        self.interactions: List[Interaction] = []

    @contextlib.asynccontextmanager
    async def interaction(self, task: Any, *, runtime: Any = None, tools: Any = None, on_trace: Any = None) -> Any:
        interaction = Interaction(self.policy, self.max_turns)
        self.interactions.append(interaction)
        try:
            yield interaction
        finally:
            interaction.closed = True
            interaction.trace.stop("user_closed")


class Agents:
    def __init__(self, **agents: Agent) -> None:
        self._agents = agents

    def __getattr__(self, name: str) -> Agent:
        return self._agents[name]


def install_verifiers() -> types.ModuleType:
    """``verifiers.v1`` in sys.modules: the vendored Taskset base and generic helpers, pydantic 1.10 models."""
    from pydantic import BaseModel

    for name in ("verifiers", "verifiers.v1", "verifiers.v1.utils", "verifiers.v1.configs"):
        module = types.ModuleType(name)
        module.__path__ = []  # a package
        sys.modules[name] = module
    _load_file("verifiers.v1.utils.generic", os.path.join(VF_ROOT, "verifiers/v1/utils/generic.py"))

    class TaskConfig(BaseModel):
        pass

    class TasksetConfig(BaseModel):  # verifiers/v1/configs/taskset.py
        id: str = ""
        task: TaskConfig = TaskConfig()
        system_prompt: Optional[Path] = None

        class Config:
            extra = "forbid"

    configs_taskset = types.ModuleType("verifiers.v1.configs.taskset")
    configs_taskset.TasksetConfig = TasksetConfig
    sys.modules["verifiers.v1.configs.taskset"] = configs_taskset

    class TaskData(BaseModel):  # verifiers/v1/task.py (frozen)
        idx: Optional[int] = None
        name: Optional[str] = None
        description: Optional[str] = None
        prompt: Any = None
        system_prompt: Optional[str] = None

        class Config:
            frozen = True
            extra = "forbid"

        def model_copy(self, update: Dict[str, Any]) -> "TaskData":
            return self.copy(update=update)

    DataT = TypeVar("DataT", bound=TaskData)

    class Task(Generic[DataT]):  # verifiers/v1/task.py
        def __init__(self, data: Any, config: Any = None) -> None:
            self.data = data
            self.config = config if config is not None else TaskConfig()

    task_module = types.ModuleType("verifiers.v1.task")
    task_module.Task, task_module.TaskData, task_module.TaskT = Task, TaskData, TypeVar("TaskT", bound=Task)
    task_module.TaskConfig = TaskConfig
    sys.modules["verifiers.v1.task"] = task_module
    taskset = _load_file("verifiers.v1.taskset", os.path.join(VF_ROOT, "verifiers/v1/taskset.py"))

    class AgentConfig(BaseModel):  # verifiers/v1/configs/agent.py
        max_turns: Optional[int] = None

    class EnvConfig(BaseModel):  # verifiers/v1/configs/env.py
        id: str = ""
        taskset: TasksetConfig = TasksetConfig()

    ConfigT = TypeVar("ConfigT", bound=EnvConfig)

    class Env(Generic[ConfigT]):  # verifiers/v1/env.py: __init__ loads the config's taskset
        def __init__(self, config: Any, taskset: Any = None) -> None:
            self.config, self.taskset = config, taskset

    vf = sys.modules["verifiers.v1"]
    for obj in (TasksetConfig, TaskData, Task, AgentConfig, EnvConfig, Env):
        setattr(vf, obj.__name__, obj)
    vf.Taskset = taskset.Taskset
    sys.modules["verifiers"].v1 = vf
    return vf


def uninstall_verifiers() -> None:
    for name in list(sys.modules):
        if name == "verifiers" or name.startswith("verifiers.") or name in ("harness_gym.adapters.verifiers", "harness_gym_env"):
            del sys.modules[name]


# --- policies -------------------------------------------------------------------------------------------


def assistant(content: Any, calls: Any = None) -> Any:
    """A verifiers ``AssistantMessage`` (flat ``ToolCall(id, name, arguments)``)."""
    tool_calls = [types.SimpleNamespace(id=c["id"], name=c["function"]["name"], arguments=c["function"]["arguments"]) for c in calls or []]
    return types.SimpleNamespace(role="assistant", content=content, reasoning_content=None, tool_calls=tool_calls or None)


class OracleSpy:
    """Wraps the adapter's pool to read the oracle hint of the running episode (one at a time here)."""

    def __init__(self, pool: Any) -> None:
        self.pool, self.info, self.actions = pool, None, []

    async def reset(self, item: Any) -> Any:
        handle, result = await self.pool.reset(item)
        self.info, self.actions = result.get("info"), []
        return handle, result

    async def step(self, handle: Any, action: Any) -> Any:
        self.actions.append(action)
        result = await self.pool.step(handle, action)
        self.info = result.get("info")
        return result

    async def release(self, handle: Any) -> None:
        self.released = getattr(self, "released", 0) + 1
        await self.pool.release(handle)


def oracle_policy(spy: OracleSpy, as_text: bool) -> Any:
    def policy(interaction: Interaction, message: Any) -> Any:
        hint = spy.info["oracle_action"]["message"]
        calls = hint.get("tool_calls") or []
        if not as_text:
            return assistant(hint.get("content"), calls)
        text = hint.get("content") or ""
        for c in calls:
            args = c["function"]["arguments"]
            text += '\n<tool_call>\n{"name": %s, "arguments": %s}\n</tool_call>' % (json.dumps(c["function"]["name"]), args if isinstance(args, str) else json.dumps(args))
        return assistant(text)

    return policy


def replay(item: Dict[str, Any], actions: List[Dict[str, Any]]) -> float:
    """The server's final reward for these actions over a fresh connection of its own."""
    pool = EnvPool(support.server_url())
    try:
        handle, _ = pool.reset_sync(item)
        for action in actions:
            step = pool.step_sync(handle, action)
            if step["terminated"] or step["truncated"]:
                return float(step["reward"])
        raise AssertionError("the replay did not end")
    finally:
        pool.close()


class TasksetTest(unittest.TestCase):
    def setUp(self) -> None:
        self.vf = install_verifiers()
        sys.path.insert(0, EXAMPLE)
        self.mod = importlib.import_module("harness_gym.adapters.verifiers")
        self.real_shared_pool = self.mod.shared_pool
        self.spies: List[OracleSpy] = []

        def spying_pool(urls: Any, **options: Any) -> Any:
            spy = OracleSpy(self.real_shared_pool(urls, **options))
            self.spies.append(spy)
            return spy

        self.mod.shared_pool = spying_pool

    def tearDown(self) -> None:
        sys.path.remove(EXAMPLE)
        close_shared_pools()
        uninstall_verifiers()

    def taskset(self, **config: Any) -> Any:
        m = self.mod
        return m.HarnessGymTaskset(m.HarnessGymConfig(id="harness-gym-env", url=support.server_url(), **config))

    def env(self, taskset: Any) -> Any:
        m = self.mod
        return m.HarnessGymEnv(m.HarnessGymEnvConfig(taskset=taskset.config), taskset)

    def play(self, env: Any, task: Any, policy: Any = None, max_turns: Optional[int] = 12, as_text: bool = False) -> Any:
        """One episode through the env's run(); the Interaction's trace, and the exception run() raised."""
        holder: Dict[str, Any] = {}

        def lazy(interaction: Interaction, message: Any) -> Any:
            holder.setdefault("messages", []).append(message)
            return (policy or oracle_policy(self.spies[-1], as_text))(interaction, message)

        agent = Agent(lazy, max_turns)
        error = None
        try:
            support.run(env.run(task, Agents(player=agent)))
        except Exception as exc:  # noqa: BLE001 - the test reads it
            error = exc
        interaction = agent.interactions[0] if agent.interactions else None
        return (interaction.trace if interaction else None), error, holder.get("messages", [])

    def test_the_example_package_exports_what_verifiers_loads(self) -> None:
        # loaders.environment_class / taskset_class: the `harness-gym-env` module's __all__ names its
        # Taskset and Env subclasses.
        example = importlib.import_module("harness_gym_env")
        exported = [getattr(example, n) for n in example.__all__]
        self.assertIn(self.mod.HarnessGymTaskset, exported)
        self.assertIn(self.mod.HarnessGymEnv, exported)
        self.assertTrue(issubclass(self.mod.HarnessGymTaskset, self.vf.Taskset))
        self.assertTrue(issubclass(self.mod.HarnessGymEnv, self.vf.Env))

    def test_the_taskset_yields_one_task_per_row_through_the_real_base_class(self) -> None:
        ts = self.taskset(num_examples=5, seed=77, variant="train", locale="en", max_turns=9, options={"oracle_hints": True})
        self.assertIs(type(ts).task_type(), self.mod.HarnessGymTask)  # verifiers' concrete_type over Taskset[...]
        tasks = list(ts)
        self.assertEqual([t.data.row["seed"] for t in tasks], [77, 78, 79, 80, 81])
        self.assertEqual([t.data.idx for t in tasks], list(range(5)))
        self.assertTrue(all(t.data.prompt is None for t in tasks))  # the env opens the conversation
        self.assertEqual(tasks[0].data.reset_options, {"oracle_hints": True, "max_turns": 9})
        self.assertEqual([t.data.row["seed"] for t in ts.head(2)], [77, 78])
        self.assertEqual(sorted(t.data.row["seed"] for t in ts.shuffle()), [77, 78, 79, 80, 81])
        rows = [{"row_id": "a", "seed": 5, "variant": "identity"}]
        self.assertEqual([t.data.row for t in self.taskset(rows=rows)], rows)

    def test_episodes_score_the_servers_final_reward(self) -> None:
        case = next(c for c in support.expected()["cases"] if c["name"] == "train-zh")
        ts = self.taskset(variant="train", locale="zh-CN", num_examples=8, seed=case["seed"], options={"oracle_hints": True})
        env = self.env(ts)
        rewards, tool_sets = [], set()
        for i, task in enumerate(ts):
            trace, error, messages = self.play(env, task, as_text=(i % 2 == 1))
            self.assertIsNone(error)
            self.assertTrue(trace.ok)
            self.assertEqual(trace.info["harness_gym"]["outcome"], case["outcomes"][i])
            self.assertIsNone(trace.info["harness_gym"]["failure"])
            self.assertEqual(set(trace.rewards), {"harness_reward"})
            rewards.append(trace.reward)
            self.assertEqual(set(trace.metrics), COMPONENTS)
            for name, value in case["components"][i].items():
                self.assertAlmostEqual(trace.metrics[name], value, places=9)
            # The opening turn: the episode's messages, its own tools in the system turn.
            opening = messages[0]
            self.assertEqual(opening[0]["role"], "system")
            tools = re.findall(r'"name": "([^"]+)"', opening[0]["content"].rsplit("<tools>", 1)[1].split("</tools>")[0])
            self.assertTrue(tools)
            tool_sets.add(tuple(tools))
            # Later turns are one user text each: tool results as <tool_response> blocks.
            self.assertTrue(all(isinstance(m, str) for m in messages[1:]))
            if len(messages) > 1:
                self.assertIn("<tool_response>", messages[1])
            # Odd episodes answered in text (Hermes <tool_call>): sent as {text}, parsed by the server.
            kinds = {next(iter(a)) for a in self.spies[-1].actions}
            # Even ones answered with structured tool calls (sent as {message}); every final reply has no
            # calls and goes as {text}.
            self.assertEqual(kinds, {"text"} if i % 2 == 1 or len(messages) == 1 else {"message", "text"})
        self.assertEqual(rewards, case["rewards"][:8])
        self.assertGreater(len(tool_sets), 1)  # tools are per episode
        support.report("adapter/verifiers/rewards", rewards)

    def test_a_policy_that_errs_scores_what_the_server_gives(self) -> None:
        ts = self.taskset(variant="train", locale="en", num_examples=6, seed=300, options={"oracle_hints": True})
        env = self.env(ts)
        got = []
        for i, task in enumerate(ts):
            oracle = oracle_policy(self.spies[-1] if self.spies else None, False)
            state = {"n": 0}

            def policy(interaction: Interaction, message: Any) -> Any:
                state["n"] += 1
                if i % 2 == 1 and state["n"] == 1:
                    return assistant("好的，稍等")
                return oracle_policy(self.spies[-1], False)(interaction, message)

            trace, error, _ = self.play(env, task, policy)
            self.assertIsNone(error)
            actions = list(self.spies[-1].actions)
            item = row_reset_item(task.data.row, task.data.reset_options)
            self.assertEqual(trace.reward, replay(item, actions))
            got.append(trace.reward)
        self.assertGreater(len(set(got)), 1, got)

    def test_failures_are_excluded_not_scored(self) -> None:
        m = self.mod
        # A reset the server refuses: run() raises (verifiers fails the episode), no interaction opened.
        bad = self.taskset(rows=[{"row_id": "x", "seed": 1, "variant": "no-such-preset"}])
        trace, error, _ = self.play(self.env(bad), next(iter(bad)))
        self.assertIsInstance(error, m.HarnessGymFailure)
        self.assertEqual(error.kind, "server_error")
        self.assertIsNone(trace)

        ts = self.taskset(variant="train", locale="en", num_examples=1, seed=900, options={"oracle_hints": True})
        task = next(iter(ts))
        # The agent's own turn cap ends a live episode: the trace is failed, unscored, the episode released.
        trace, error, _ = self.play(self.env(ts), task, max_turns=1, policy=lambda it, msg: assistant("嗯"))
        self.assertEqual(getattr(error, "kind", None), "unfinished", error)
        self.assertFalse(trace.ok)
        self.assertTrue(trace.has_error)
        self.assertEqual(trace.rewards, {})
        self.assertEqual(trace.info["harness_gym"]["failure"], "unfinished")
        self.assertEqual(self.spies[-1].released, 1)

        # The server's turn cap (options.max_turns): excluded by default, trained with train_on_capped.
        def stall(interaction: Interaction, message: Any) -> Any:
            hint = self.spies[-1].info["oracle_action"]["message"]
            calls = hint.get("tool_calls")
            return assistant(None, calls) if calls else assistant("让我再查一下", [{"id": "c1", "function": {"name": "nope", "arguments": "{}"}}])

        for train_on_capped in (False, True):
            capped = self.taskset(variant="train", locale="en", num_examples=1, seed=900, max_turns=1, options={"oracle_hints": True}, train_on_capped=train_on_capped)
            trace, error, _ = self.play(self.env(capped), next(iter(capped)), policy=stall, max_turns=5)
            self.assertEqual(trace.info["harness_gym"]["outcome"], "max_turns")
            self.assertEqual(trace.stop_condition, "max_turns" if train_on_capped else "max_turns")
            if train_on_capped:
                self.assertIsNone(error)
                self.assertTrue(trace.ok)
                self.assertEqual(set(trace.rewards), {"harness_reward"})
            else:
                self.assertEqual(getattr(error, "kind", None), "max_turns")
                self.assertFalse(trace.ok)
                self.assertEqual(trace.rewards, {})


# --- the adapter's verifiers interface, read from the vendored source -------------------------------------


def _classes(path: str) -> Dict[str, ast.ClassDef]:
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    return {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}


def _member(cls: ast.ClassDef, name: str) -> Any:
    for node in cls.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return node
    return None


def _params(fn: Any) -> List[str]:
    a = fn.args
    return [p.arg for p in a.posonlyargs + a.args] + ["*" + p.arg for p in a.kwonlyargs]


#: (vendored file, class, member, expected parameters or "field", async?) — each one the adapter relies on.
INTERFACE = [
    ("verifiers/v1/taskset.py", "Taskset", "__init__", ["self", "config"], False),
    ("verifiers/v1/taskset.py", "Taskset", "load", ["self"], False),
    ("verifiers/v1/task.py", "Task", "__init__", ["self", "data", "config"], False),
    ("verifiers/v1/task.py", "TaskData", "idx", "field", None),
    ("verifiers/v1/task.py", "TaskData", "name", "field", None),
    ("verifiers/v1/task.py", "TaskData", "prompt", "field", None),
    ("verifiers/v1/configs/taskset.py", "TasksetConfig", "task", "field", None),
    ("verifiers/v1/configs/taskset.py", "TasksetConfig", "id", "field", None),
    ("verifiers/v1/configs/env.py", "EnvConfig", "taskset", "field", None),
    ("verifiers/v1/env.py", "Env", "__init__", ["self", "config"], False),
    ("verifiers/v1/env.py", "Env", "run", ["self", "task", "agents"], True),
    ("verifiers/v1/agent.py", "Agents", "__getattr__", ["self", "name"], False),
    ("verifiers/v1/agent.py", "Agent", "interaction", ["self", "task", "*runtime", "*tools", "*on_trace"], True),
    ("verifiers/v1/agent.py", "Interaction", "turn", ["self", "message"], True),
    ("verifiers/v1/agent.py", "Interaction", "trace", ["self"], False),
    ("verifiers/v1/agent.py", "Segment", "messages", "field", None),
    ("verifiers/v1/agent.py", "Segment", "terminated", "field", None),
    ("verifiers/v1/trace.py", "Trace", "info", "field", None),
    ("verifiers/v1/trace.py", "Trace", "ok", "field", None),
    ("verifiers/v1/trace.py", "Trace", "stop_condition", "field", None),
    ("verifiers/v1/trace.py", "Trace", "has_error", ["self"], False),
    ("verifiers/v1/trace.py", "Trace", "record_reward", ["self", "name", "value", "weight"], False),
    ("verifiers/v1/trace.py", "Trace", "record_metrics", ["self", "values"], False),
    ("verifiers/v1/trace.py", "Trace", "stop", ["self", "condition"], False),
    ("verifiers/v1/trace.py", "Trace", "record_error", ["self", "error"], False),
    ("verifiers/v1/types.py", "AssistantMessage", "role", "field", None),
    ("verifiers/v1/types.py", "AssistantMessage", "content", "field", None),
    ("verifiers/v1/types.py", "AssistantMessage", "reasoning_content", "field", None),
    ("verifiers/v1/types.py", "AssistantMessage", "tool_calls", "field", None),
    ("verifiers/v1/types.py", "ToolCall", "id", "field", None),
    ("verifiers/v1/types.py", "ToolCall", "name", "field", None),
    ("verifiers/v1/types.py", "ToolCall", "arguments", "field", None),
    ("verifiers/v1/configs/agent.py", "AgentConfig", "max_turns", "field", None),
]


def interface_problems(root: str) -> List[str]:
    """What the adapter needs that the verifiers source under ``root`` lacks (empty when compatible)."""
    problems = []
    cache: Dict[str, Dict[str, ast.ClassDef]] = {}
    for path, cls_name, member, want, is_async in INTERFACE:
        classes = cache.setdefault(path, _classes(os.path.join(root, path)))
        cls = classes.get(cls_name)
        node = _member(cls, member) if cls is not None else None
        where = f"{path}: {cls_name}.{member}"
        if node is None:
            problems.append(f"{where}: missing")
        elif want == "field":
            if not isinstance(node, ast.AnnAssign):
                problems.append(f"{where}: not a field")
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            problems.append(f"{where}: not a method")
        else:
            got = _params(node)
            if got != want:
                problems.append(f"{where}: parameters {got}, the adapter needs {want}")
            if is_async is not None and isinstance(node, ast.AsyncFunctionDef) != is_async:
                problems.append(f"{where}: {'not ' if is_async else ''}async")
    # Every `vf.NAME` the adapter uses is exported by verifiers.v1.
    with open(os.path.join(root, "verifiers/v1/__init__.py"), encoding="utf-8") as f:
        init = ast.parse(f.read())
    exported = next(ast.literal_eval(n.value) for n in init.body if isinstance(n, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in n.targets))
    with open(ADAPTER, encoding="utf-8") as f:
        adapter = ast.parse(f.read())
    used = {n.attr for n in ast.walk(adapter) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "vf"}
    problems += [f"verifiers/v1/__init__.py: vf.{name} is not exported" for name in sorted(used - set(exported))]
    return problems


class InterfaceTest(unittest.TestCase):
    def test_the_adapter_uses_only_what_the_vendored_verifiers_has(self) -> None:
        self.assertEqual(interface_problems(VF_ROOT), [])

    def test_the_adapter_uses_the_interface_table(self) -> None:
        with open(ADAPTER, encoding="utf-8") as f:
            adapter = ast.parse(f.read())
        used = {n.attr for n in ast.walk(adapter) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "vf"}
        self.assertEqual(used, {"TasksetConfig", "TaskData", "Task", "Taskset", "EnvConfig", "AgentConfig", "Env"})
        calls = {n.func.attr for n in ast.walk(adapter) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and isinstance(n.func.value, ast.Name) and n.func.value.id in ("trace", "interaction")}
        table = {member for _, _, member, _, _ in INTERFACE}
        self.assertLessEqual(calls, table)

    def test_a_changed_interface_fails(self) -> None:
        import shutil
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "verifiers")
            shutil.copytree(VF_ROOT, copy)
            path = os.path.join(copy, "verifiers/v1/trace.py")
            with open(path, encoding="utf-8") as f:
                text = f.read()
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace("def record_reward(self, name: str, value: float, weight: float = 1.0)", "def record_reward(self, key: str, value: float)"))
            self.assertEqual(interface_problems(copy), ["verifiers/v1/trace.py: Trace.record_reward: parameters ['self', 'key', 'value'], the adapter needs ['self', 'name', 'value', 'weight']"])

    def test_prime_rl_excludes_failed_traces(self) -> None:
        # orchestrator/algo/base.py: iter_trainable_traces skips `trace.has_error`; grpo's group baseline
        # is over those traces only; envs.py marks every trace of a failed episode failed.
        base = os.path.join(PRIME_ROOT, "src/prime_rl/orchestrator/algo/base.py")
        with open(base, encoding="utf-8") as f:
            self.assertIn("if trace.has_error or not trace.agent.trainable:", f.read())
        with open(os.path.join(PRIME_ROOT, "src/prime_rl/orchestrator/algo/grpo.py"), encoding="utf-8") as f:
            self.assertIn("traces = [trace for _, trace in iter_trainable_traces(episodes)]", f.read())
        with open(os.path.join(PRIME_ROOT, "src/prime_rl/orchestrator/envs.py"), encoding="utf-8") as f:
            self.assertIn("if not episode.ok and trace.ok:", f.read())
        with open(os.path.join(VF_ROOT, "verifiers/v1/env.py"), encoding="utf-8") as f:
            self.assertIn("episode.errors.append(_as_error(e))", f.read())


# --- the prime-rl TOML in docs/training/verifiers.md --------------------------------------------------------


def _config_index() -> Dict[str, Any]:
    """``"ns.Class"`` -> (fields {name: annotation}, qualified bases) and ``"ns.Alias"`` -> annotation, over
    the vendored prime-rl config modules (ns ``prime``), verifiers' config modules and the adapter (ns
    ``vf``: the adapter's configs narrow ``env`` and ``env.taskset`` as verifiers' loaders do by id)."""
    prime = [os.path.join(PRIME_ROOT, "packages/prime-rl-configs/src/prime_rl/configs", f) for f in ("rl.py", "orchestrator.py", "shared.py", "trainer.py", "inference.py", "algorithm.py", "monitors.py")]
    vf = [os.path.join(VF_ROOT, "verifiers/v1", f) for f in ("configs/taskset.py", "configs/env.py", "configs/agent.py", "configs/harness.py", "runtimes/__init__.py", "runtimes/subprocess.py")] + [ADAPTER]
    classes: Dict[str, Any] = {}
    aliases: Dict[str, ast.AST] = {}
    for ns, files in (("prime", prime), ("vf", vf)):
        for path in files:
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read())
            for node in tree.body:
                if isinstance(node, ast.ClassDef):
                    fields = {n.target.id: (ns, n.annotation) for n in node.body if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
                    bases = [_qualify(ns, b) for b in node.bases]
                    classes[f"{ns}.{node.name}"] = (fields, [b for b in bases if b])
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        if isinstance(t, ast.Name) and node.value is not None:
                            aliases[f"{ns}.{t.id}"] = (ns, node.value)
    return {"classes": classes, "aliases": aliases}


def _qualify(ns: str, node: ast.AST) -> Optional[str]:
    """``vf.X`` is verifiers' X wherever it is written; a bare name is its own module group's."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "vf":
        return f"vf.{node.attr}"
    if isinstance(node, ast.Name):
        return f"{ns}.{node.id}"
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
        return f"{ns}.{node.value}"
    if isinstance(node, ast.Subscript):  # Generic[...] bases
        return _qualify(ns, node.value)
    return None


def _fields(index: Dict[str, Any], name: str) -> Dict[str, Any]:
    fields: Dict[str, Any] = {}
    fields_of, bases = index["classes"].get(name, ({}, []))
    for base in bases:
        fields.update(_fields(index, base))
    fields.update(fields_of)
    return fields


def _candidates(index: Dict[str, Any], ns: str, annotation: ast.AST, seen: Optional[set] = None) -> List[str]:
    """The config classes a value under this annotation may be: named classes (through aliases) and their
    indexed subclasses (verifiers narrows ``env``/``taskset`` to the selected plugin's class)."""
    seen = seen if seen is not None else set()
    names: List[str] = []
    for n in ast.walk(annotation):
        if isinstance(n, ast.Name) and any(isinstance(p, ast.Attribute) and p.value is n for p in ast.walk(annotation)):
            continue  # the `vf` of `vf.X`
        name = _qualify(ns, n) if isinstance(n, (ast.Attribute, ast.Name, ast.Constant)) else None
        if name is None or name in seen:
            continue
        seen.add(name)
        if name in index["classes"]:
            names.append(name)
        elif name in index["aliases"]:
            names += _candidates(index, *index["aliases"][name], seen)
    subclasses = [c for c, (_, bases) in index["classes"].items() if any(b in names for b in bases) and c not in names]
    return names + subclasses


def toml_problems(doc: Dict[str, Any], index: Dict[str, Any], cls: str = "prime.RLConfig", where: str = "") -> List[str]:
    fields = _fields(index, cls)
    problems = []
    for key, value in doc.items():
        path = f"{where}.{key}" if where else key
        if key not in fields:
            problems.append(f"{path}: no field {key!r} on {cls}")
            continue
        values = value if isinstance(value, list) and value and all(isinstance(v, dict) for v in value) else [value]
        for v in values:
            if not isinstance(v, dict):
                continue
            options = _candidates(index, *fields[key])
            results = [toml_problems(v, index, c, path) for c in options]
            if not options:
                problems.append(f"{path}: {cls}.{key} is not a config class")
            elif all(results):
                problems += min(results, key=len)
    return problems


def doc_toml() -> Dict[str, Any]:
    import tomli

    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "one prime-rl TOML in docs/training/verifiers.md"
    return tomli.loads(blocks[0])


class PrimeRlConfigTest(unittest.TestCase):
    def test_the_docs_toml_fits_prime_rls_config_classes(self) -> None:
        doc = doc_toml()
        self.assertEqual(toml_problems(doc, _config_index()), [])
        source = doc["orchestrator"]["train"]["source"][0]["env"]
        self.assertEqual(source["taskset"]["id"], "harness-gym-env")
        self.assertEqual(source["player"]["harness"]["id"], "null")

    def test_the_check_catches_removed_keys(self) -> None:
        index = _config_index()
        old = {"max_steps": 1, "sampling": {"max_tokens": 1024}, "env": [{"id": "harness-gym-env", "args": {}}]}
        self.assertEqual(toml_problems(old, index), ["sampling: no field 'sampling' on prime.RLConfig", "env: no field 'env' on prime.RLConfig"])
        typo = {"orchestrator": {"train": {"source": [{"env": {"taskset": {"id": "x", "urll": "ws://"}}}]}}}
        self.assertEqual(len(toml_problems(typo, index)), 1)
        self.assertIn("urll", toml_problems(typo, index)[0])


if __name__ == "__main__":
    unittest.main()
