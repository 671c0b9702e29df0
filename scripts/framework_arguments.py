#!/usr/bin/env python3
"""Regenerate tests/data/launch/*.txt: every setting a training framework accepts.

The launch-settings tests check that each flag/key our generator emits exists in
the framework at a pinned release and that its value has the right type/choice.
Sources are read from local git mirrors (`git -C DIR show REV:PATH`) and parsed
with `ast`; no framework is imported.

    python3 scripts/framework_arguments.py --megatron-lm MIRROR --nemo MIRROR \
        --nemo-megatron-core MIRROR --torchtitan MIRROR -o tests/data/launch
"""

import argparse
import ast
import pathlib
import subprocess

# Megatron-LM: megatron/training/arguments.py at the pinned release.
MEGATRON_TAG, MEGATRON_COMMIT = "core_v0.15.3", "309ffca6a40553362d44fd17efc56b772fa1aa44"
MEGATRON_FILE = "megatron/training/arguments.py"
# NeMo 2.0 and the Megatron-Core it pins in requirements/manifest.json.
NEMO_TAG, NEMO_COMMIT = "v2.4.0", "2381f42f6979449b5b99538f8f80135831009b51"
NEMO_MCORE_COMMIT = "03f7793114aa49af8ad7ac5eb70affe56f5f28ea"
NEMO_MCORE_FALLBACK_TAG = "core_v0.14.0"  # used only if the commit is missing
NEMO_RECIPE = "nemo/collections/llm/recipes/llama3_70b.py"
# (key prefix, file, class, "init" = __init__ parameters or "fields" = dataclass fields)
NEMO_SOURCES = [
    ("trainer.strategy.", "nemo/lightning/pytorch/strategies/megatron_strategy.py", "MegatronStrategy", "init"),
    ("trainer.plugins.", "nemo/lightning/pytorch/plugins/mixed_precision.py", "MegatronMixedPrecision", "init"),
    ("data.", "nemo/collections/llm/gpt/data/mock.py", "MockDataModule", "init"),
    ("model.config.", "nemo/collections/llm/gpt/model/base.py", "GPTConfig", "fields"),
]
MCORE_SOURCES = [  # read from the Megatron-LM mirror at NEMO_MCORE_COMMIT
    ("model.config.", "megatron/core/transformer/transformer_config.py", "TransformerConfig", "fields"),
    ("model.config.", "megatron/core/model_parallel_config.py", "ModelParallelConfig", "fields"),
    ("trainer.strategy.ddp.", "megatron/core/distributed/distributed_data_parallel_config.py",
     "DistributedDataParallelConfig", "fields"),
    ("optim.config.", "megatron/core/optimizer/optimizer_config.py", "OptimizerConfig", "fields"),
]
NEMO_TRAINER_KEYS = ["num_nodes", "devices", "max_steps", "val_check_interval"]  # set by NEMO_RECIPE
# TorchTitan: the last release configured by TOML files.
TORCHTITAN_TAG, TORCHTITAN_COMMIT = "v0.2.2", "73a0e6979dd10b6b1904098eb3c8f62c18ab87ce"
TORCHTITAN_FILE = "torchtitan/config/job_config.py"

SCALARS = {"int", "float", "bool", "str"}
LISTS = {"list", "List", "tuple", "Tuple", "Sequence"}


def git(mirror, *args):
    return subprocess.run(["git", "-C", mirror, *args], check=True, capture_output=True, text=True).stdout


def show(mirror, rev, path):
    return ast.parse(git(mirror, "show", f"{rev}:{path}"), filename=path)


def check_tag(mirror, tag, commit):
    """Fail if the mirror's tag no longer points at the pinned commit."""
    found = git(mirror, "rev-parse", f"{tag}^{{commit}}").strip()
    assert found == commit, f"{tag} is {found} in {mirror}, expected {commit}"


def commit_date(mirror, rev):
    return git(mirror, "log", "-1", "--format=%cs", rev).strip()


def find_class(tree, name):
    return next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name)


def type_aliases(tree):
    """Module-level `Name = <annotation>` assignments, e.g. DDPLiteral = Literal[...]."""
    return {t.id: n.value for n in tree.body if isinstance(n, ast.Assign)
            for t in n.targets if isinstance(t, ast.Name) and isinstance(n.value, ast.Subscript)}


def choice_strings(values):
    return [str(v) for v in values if v is not None and " " not in str(v)]


def ann_kind(node, aliases=None):
    """Annotation -> (type, choices): Optional[X] -> X, Literal -> its values' type,
    List -> list, Union of int/float -> float, enums/unknown/other Union -> str."""
    aliases = aliases or {}
    if node is None:
        return "str", []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):  # forward reference
        return ann_kind(ast.parse(node.value, mode="eval").body, aliases)
    if isinstance(node, ast.Name) and node.id in aliases:
        return ann_kind(aliases[node.id], aliases)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):  # X | Y
        return union_kind([node.left, node.right], aliases)
    if isinstance(node, ast.Subscript):
        head = ast.unparse(node.value).split(".")[-1]
        args = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if head == "Optional":
            return ann_kind(args[0], aliases)
        if head == "Union":
            return union_kind(args, aliases)
        if head == "Literal":
            values = [a.value for a in args if isinstance(a, ast.Constant)]
            kinds = {type(v).__name__ for v in values if v is not None}
            return (kinds.pop() if len(kinds) == 1 and kinds <= SCALARS else "str"), choice_strings(values)
        return ("list" if head in LISTS else "str"), []
    name = ast.unparse(node)
    return (name if name in SCALARS else "list" if name in LISTS else "str"), []


def union_kind(members, aliases):
    """Union[...] / X | Y: None members make it Optional; int|float -> float; else str."""
    def flatten(m):
        if isinstance(m, ast.BinOp) and isinstance(m.op, ast.BitOr):
            return flatten(m.left) + flatten(m.right)
        return [] if isinstance(m, ast.Constant) and m.value is None else [m]
    flat = [f for m in members for f in flatten(m)]
    if len(flat) == 1:  # Optional[X]
        return ann_kind(flat[0], aliases)
    if {ann_kind(m, aliases)[0] for m in flat} <= {"int", "float"}:
        return "float", []
    return "str", []


def class_settings(tree, cls, how):
    """(name, type, choices) for __init__ parameters or dataclass fields of `cls`."""
    node, aliases = find_class(tree, cls), type_aliases(tree)
    if how == "fields":
        return [(s.target.id, *ann_kind(s.annotation, aliases)) for s in node.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
    init = next(s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == "__init__")
    params = init.args.posonlyargs + init.args.args + init.args.kwonlyargs
    defaults = [None] * (len(init.args.posonlyargs + init.args.args) - len(init.args.defaults))
    defaults += init.args.defaults + init.args.kw_defaults
    out = []
    for p, d in zip(params, defaults):
        if p.arg == "self":
            continue
        if p.annotation is None and isinstance(d, ast.Constant) and type(d.value).__name__ in SCALARS:
            out.append((p.arg, type(d.value).__name__, []))  # unannotated: type of the default
        else:
            out.append((p.arg, *ann_kind(p.annotation, aliases)))
    return out


def megatron_settings(tree):
    """Every add_argument(...) call: each `--` option string with its kind and choices."""
    out = []
    for call in ast.walk(tree):
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                and call.func.attr == "add_argument"):
            continue
        kw = {k.arg: k.value for k in call.keywords if k.arg}
        action = ast.unparse(kw["action"]).strip("'\"") if "action" in kw else ""
        nargs = kw["nargs"].value if isinstance(kw.get("nargs"), ast.Constant) else None
        ctype = ast.unparse(kw["type"]) if "type" in kw else "str"
        if action in ("store_true", "store_false", "store_const") or action.endswith("BooleanOptionalAction"):
            kind = "switch"
        elif nargs in ("+", "*") or isinstance(nargs, int):
            kind = "list"
        else:
            kind = ctype if ctype in SCALARS else "str"
        choices = []
        if isinstance(kw.get("choices"), (ast.List, ast.Tuple)) and all(
                isinstance(e, ast.Constant) for e in kw["choices"].elts):
            choices = choice_strings(e.value for e in kw["choices"].elts)
        flags = [a.value for a in call.args if isinstance(a, ast.Constant) and str(a.value).startswith("--")]
        if action.endswith("BooleanOptionalAction"):  # argparse also accepts --no-<flag>
            flags += ["--no-" + f[2:] for f in flags]
        out += [(f, kind, choices) for f in flags]
    return out


def torchtitan_settings(tree):
    """section.field for each JobConfig section dataclass, recursing into nested dataclasses."""
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}

    def walk(prefix, cls):
        for s in classes[cls].body:
            if not isinstance(s, ast.AnnAssign):
                continue
            if isinstance(s.annotation, ast.Name) and s.annotation.id in classes:  # a [table]
                yield from walk(f"{prefix}{s.target.id}.", s.annotation.id)
            elif prefix:  # JobConfig itself has only sections
                yield (prefix + s.target.id, *ann_kind(s.annotation))

    return list(walk("", "JobConfig"))


def write(path, header, settings, notes=()):
    first = {}
    for name, kind, choices in settings:
        first.setdefault(name, (kind, choices))  # duplicate names: keep the first definition
    lines = [f"# {h}" for h in header] + [
        "# generated by scripts/framework_arguments.py; one accepted setting per line:",
        "# NAME TYPE [CHOICE ...]   TYPE is switch, int, float, bool, str or list"]
    lines += [f"# {note}" for note in notes]
    lines += [" ".join([name, first[name][0], *first[name][1]]) for name in sorted(first)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{path}: {len(first)} settings")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--megatron-lm", required=True, help="Megatron-LM git mirror")
    p.add_argument("--nemo", required=True, help="NeMo git mirror")
    p.add_argument("--nemo-megatron-core", required=True, help="Megatron-LM git mirror for NeMo's Megatron-Core")
    p.add_argument("--torchtitan", required=True, help="TorchTitan git mirror")
    p.add_argument("-o", "--output", required=True, type=pathlib.Path)
    a = p.parse_args()
    a.output.mkdir(parents=True, exist_ok=True)

    m, n, mc, t = a.megatron_lm, a.nemo, a.nemo_megatron_core, a.torchtitan
    for mirror, tag, commit in [(m, MEGATRON_TAG, MEGATRON_COMMIT), (n, NEMO_TAG, NEMO_COMMIT),
                                (t, TORCHTITAN_TAG, TORCHTITAN_COMMIT)]:
        check_tag(mirror, tag, commit)
    write(a.output / "megatron-lm.txt", [
        f"Megatron-LM {MEGATRON_TAG} ({MEGATRON_COMMIT}, {commit_date(m, MEGATRON_COMMIT)})",
        f"source: https://github.com/NVIDIA/Megatron-LM, {MEGATRON_FILE}"],
        megatron_settings(show(m, MEGATRON_COMMIT, MEGATRON_FILE)))

    mcore_rev, mcore_note = NEMO_MCORE_COMMIT, "pinned by NeMo requirements/manifest.json"
    if subprocess.run(["git", "-C", mc, "cat-file", "-e", mcore_rev + "^{commit}"],
                      capture_output=True).returncode != 0:
        mcore_rev = NEMO_MCORE_FALLBACK_TAG
        mcore_note = f"commit {NEMO_MCORE_COMMIT} pinned by NeMo is missing from the mirror; using tag {mcore_rev}"
    recipe = git(n, "show", f"{NEMO_COMMIT}:{NEMO_RECIPE}")
    assert all(f"{k}=" in recipe for k in NEMO_TRAINER_KEYS), "recipe no longer sets the trainer keys"
    settings = [("trainer." + k, "int", []) for k in NEMO_TRAINER_KEYS]
    for prefix, path, cls, how in NEMO_SOURCES:
        settings += [(prefix + s, k, c) for s, k, c in class_settings(show(n, NEMO_COMMIT, path), cls, how)]
    for prefix, path, cls, how in MCORE_SOURCES:
        settings += [(prefix + s, k, c) for s, k, c in class_settings(show(mc, mcore_rev, path), cls, how)]
    write(a.output / "nemo.txt", [
        f"NeMo {NEMO_TAG} ({NEMO_COMMIT}, {commit_date(n, NEMO_COMMIT)})",
        f"source: https://github.com/NVIDIA/NeMo, {NEMO_RECIPE} (trainer.*), "
        + ", ".join(f"{path} ({cls})" for _, path, cls, _ in NEMO_SOURCES),
        f"source: https://github.com/NVIDIA/Megatron-LM at {mcore_rev} ({commit_date(mc, mcore_rev)}, {mcore_note}), "
        + ", ".join(f"{path} ({cls})" for _, path, cls, _ in MCORE_SOURCES)], settings,
        ["NAME is a NeMo 2.0 recipe override: nemo llm pretrain --factory RECIPE NAME=value"])

    write(a.output / "torchtitan.txt", [
        f"TorchTitan {TORCHTITAN_TAG} ({TORCHTITAN_COMMIT}, {commit_date(t, TORCHTITAN_COMMIT)})",
        f"source: https://github.com/pytorch/torchtitan, {TORCHTITAN_FILE} (JobConfig sections)"],
        torchtitan_settings(show(t, TORCHTITAN_COMMIT, TORCHTITAN_FILE)),
        ["NAME a.b.field is the TOML key `field` under [a.b] and the CLI flag --a.b.field"])


if __name__ == "__main__":
    main()
