"""The rules tests/contracts/test_docs_voice.py holds the repository's prose to.

Documentation and code comments describe the product as it is: what a capability does and why, not
which work item, milestone or commit produced it. A reader of a clone has no issue tracker, no list
of milestones and no link to a folder beside the repository, so those references only send them
nowhere. Three checks:

- ``history_references``: issue numbers (``issue #23``, ``issue 19``, ``(#22)``), milestone stops
  (``stop 34``) and commit ids (``commit 6d7e9ed``, ``(6d7e9ed)``) in README.md, docs/, any Markdown
  under the code folders, and the comments and docstrings of the code there (Python through its
  tokens, other text files line by line).
- ``broken_links``: a Markdown link or image that is not http(s), mailto or an in-page anchor must
  name a file of the repository (a clone has nothing outside it), and an anchor into a Markdown file
  must name one of its headings.
- ``missing_paths``: a backticked repository path in README.md or docs/ (and every path-shaped word of
  docs/architecture.md, which walks a turn through the files) must exist.

Left out on purpose, each for its reason: generated code (libs/lore_proto, the TypeScript client's
schema and OpenAPI copy), data files (tests/data, JSON), lock files and node_modules (hashes there
are content, not history), and SQL migrations (their text is checksummed once applied, so an
applied migration is never edited). A colour (``#333``) is only looked for in prose, never in CSS.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from pathlib import Path

CODE_FOLDERS = ("services", "libs", "apps", "clients", "bench", "scripts", "deploy", "tests")
SKIPPED_PARTS = {"node_modules", "lore_proto", ".venv", "__pycache__", "dist", "build", ".lore"}
SKIPPED_PREFIXES = ("tests/data/",)
SKIPPED_NAMES = {"schema.ts", "openapi.json", "package-lock.json"}
SKIPPED_SUFFIXES = {".json", ".lock", ".png", ".jpg", ".svg", ".whl", ".gguf", ".onnx", ".bin", ".ico"}
# Text files whose comments are read line by line: the comment marker of each.
COMMENT_MARKERS = {
    ".sh": ("#",),
    ".yaml": ("#",),
    ".yml": ("#",),
    ".toml": ("#",),
    ".env": ("#",),
    ".ts": ("//", "/*", "*"),
    ".js": ("//", "/*", "*"),
    ".mjs": ("//", "/*", "*"),
    ".css": ("/*", "*"),
    ".html": ("<!--",),
}

OWN_EXAMPLES = ("tests/contracts/docs_voice.py", "tests/contracts/test_docs_voice.py")
HEX_ID = r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}"
HISTORY = re.compile(
    r"\bissues?\s*#?\s*\d+"  # issue #23, issue 19, issues 18
    r"|(?<![\w&#/=%`-])#\d{1,4}\b(?![\w`-])"  # (#22), see #41; not &#39;, `#333` nor a URL's fragment
    r"|\bstops?\s+\d+\b(?![.,]\d)(?!\s*(?:s|ms|seconds?|minutes?)\b)"  # stop 34; not "stop 3.5 s"
    rf"|\b(?:commits?|revision|sha)\s+{HEX_ID}\b"  # commit 6d7e9ed
    rf"|\({HEX_ID}\)",  # (6d7e9ed)
    re.IGNORECASE,
)
OUTSIDE = re.compile(r"(?<![\w./])(\.\./[^\s)`'\"]+|/work/[^\s)`'\"]+)")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<img[^>]*\ssrc=\"([^\"]+)\"")
FENCE = re.compile(r"^\s*(```|~~~)")
BACKTICKED = re.compile(r"`([^`\s]+)`")
TOP_FOLDERS = (*CODE_FOLDERS, "docs", "protos", "contracts", "examples", ".ci")
PATH_WORD = re.compile(rf"(?<![\w./-])((?:{'|'.join(re.escape(f) for f in TOP_FOLDERS)})/[\w./<>*-]*[\w/>*])")


def repository_files(root: Path, folders: tuple[str, ...] = CODE_FOLDERS) -> Iterator[Path]:
    """Every file under ``folders`` the voice rules read (see the module's docstring for what is not)."""
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root).as_posix()
            if not path.is_file() or SKIPPED_PARTS & set(path.parts) or relative.startswith(SKIPPED_PREFIXES):
                continue
            if path.name in SKIPPED_NAMES or path.suffix in SKIPPED_SUFFIXES:
                continue
            if path.suffix == ".sql" and path.parent.name == "migrations":
                continue
            yield path


def documents(root: Path) -> list[Path]:
    """README.md, docs/*.md and the Markdown under the code folders."""
    found = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    found += [path for path in repository_files(root) if path.suffix == ".md"]
    return found


def prose_lines(text: str) -> Iterator[tuple[int, str]]:
    """Markdown lines outside fenced code blocks, numbered from 1."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def python_prose(text: str) -> Iterator[tuple[int, str]]:
    """A Python file's comments and docstrings, each with the line it starts on."""
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string.lstrip("#")
    tree = ast.parse(text)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                for offset, line in enumerate(first.value.value.splitlines()):
                    yield first.lineno + offset, line


def commented_lines(text: str, markers: tuple[str, ...]) -> Iterator[tuple[int, str]]:
    """The lines of a text file that are (or end in) a comment, by its comment markers."""
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        for marker in markers:
            at = stripped.find(marker) if marker in ("#", "//") else (0 if stripped.startswith(marker) else -1)
            if at >= 0:
                yield number, stripped[at + len(marker) :]
                break


def prose_of(path: Path) -> Iterator[tuple[int, str]]:
    text = path.read_text(encoding="utf-8")
    if not HISTORY.search(text):  # nothing anywhere in the file, so nothing in its prose: skip parsing
        return
    if path.suffix == ".md":
        yield from prose_lines(text)
    elif path.suffix == ".py":
        yield from python_prose(text)
    elif path.suffix in COMMENT_MARKERS:
        yield from commented_lines(text, COMMENT_MARKERS[path.suffix])
    elif path.name in ("Dockerfile", "Makefile") or not path.suffix:
        yield from commented_lines(text, ("#",))


def history_references(root: Path) -> list[str]:
    """``path:line: text`` for every issue number, milestone stop or commit id in the repository's prose."""
    paths = dict.fromkeys([*documents(root), *repository_files(root)])
    for own in OWN_EXAMPLES:  # the checker and its test spell out what they look for
        paths.pop(root / own, None)
    found = []
    for path in paths:
        try:
            lines = list(prose_of(path))
        except (UnicodeDecodeError, SyntaxError, tokenize.TokenError, FileNotFoundError):
            continue
        for number, line in lines:
            for match in HISTORY.finditer(line):
                found.append(f"{path.relative_to(root).as_posix()}:{number}: {match.group(0)!r}")
    return found


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    seen: dict[str, int] = {}
    names = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not heading:
            continue
        name = slug(heading.group(1))
        count = seen.get(name, 0)
        seen[name] = count + 1
        names.add(name if count == 0 else f"{name}-{count}")
    return names


def broken_links(root: Path) -> list[str]:
    """``path:line: target`` for every relative link that leaves the repository or names nothing."""
    found = []
    for path in documents(root):
        text = path.read_text(encoding="utf-8")
        for number, line in prose_lines(text):
            outside = [
                named
                for named in OUTSIDE.findall(line)
                if named.startswith("/") or not (path.parent / named).resolve().is_relative_to(root.resolve())
            ]
            relative = path.relative_to(root).as_posix()
            found += [f"{relative}:{number}: {named} (outside the repository)" for named in outside]
            for match in LINK.finditer(line):
                target = match.group(1) or match.group(2)
                if re.match(r"(https?|mailto):", target) or target in outside:
                    continue
                file_part, _, anchor = target.partition("#")
                where = path if not file_part else (path.parent / file_part).resolve()
                if not where.is_relative_to(root.resolve()) or not where.exists():
                    found.append(f"{relative}:{number}: {target}")
                elif anchor and where.suffix == ".md" and anchor not in anchors(where):
                    found.append(f"{relative}:{number}: {target} (no such heading)")
    return found


def path_exists(root: Path, candidate: str) -> bool:
    candidate = re.sub(r":\d+(-\d+)?$", "", candidate.rstrip(".,;:)"))
    if any(mark in candidate for mark in ("<", "*", "{", "…")):
        pattern = re.sub(r"<[^>]*>", "*", candidate).replace("…", "*")
        if "{" in pattern:
            pattern = pattern[: pattern.index("{")] + "*"
        return any(root.glob(pattern.rstrip("/"))) or any(root.glob(pattern.rstrip("/") + "*"))
    return (root / candidate).exists()


def missing_paths(root: Path) -> list[str]:
    """``path:line: name`` for every repository path a document names that does not exist."""
    found = []
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        walk = path.name == "architecture.md"
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            words = [m.group(1) for m in PATH_WORD.finditer(line)] if walk else []
            words += [
                match.group(1)
                for match in BACKTICKED.finditer(line)
                if match.group(1).startswith(tuple(f"{f}/" for f in TOP_FOLDERS))
                and not line[: match.start()].endswith("tag ")  # a git tag such as contracts/v1.0.0
            ]
            for word in dict.fromkeys(words):
                if not path_exists(root, word):
                    found.append(f"{path.relative_to(root).as_posix()}:{number}: {word}")
    return found
