"""Apple availability of declarations, from symbol graphs, and the `#available` / `@available`
scopes of a Swift source file.

The symbol graphs come from `swift-symbolgraph-extract`, which reads the Apple `@available`
attributes that the Linux toolchain's module interfaces and the built modules keep; each symbol is
keyed by its precise USR, the same string the index store records for a reference.
"""

import glob
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor

from manifests import parse_version

# Symbol graph and source spellings of the platforms, to the manifests' names.
DOMAINS = {
    "macos": "macos", "osx": "macos", "macosx": "macos",
    "ios": "ios", "tvos": "tvos", "watchos": "watchos", "visionos": "visionos", "xros": "visionos",
    "maccatalyst": "maccatalyst",
}


class Requirement:
    """What a declaration needs on one platform: introduced in a version, or unavailable."""

    __slots__ = ("introduced", "unavailable", "obsoleted")

    def __init__(self, introduced=None, unavailable=False, obsoleted=None):
        self.introduced = introduced
        self.unavailable = unavailable
        self.obsoleted = obsoleted

    def violated_by(self, floor):
        """Why a use at `floor` breaks an Apple build, or None."""
        if self.unavailable:
            return "unavailable"
        if self.obsoleted is not None and floor >= self.obsoleted:
            return "obsoleted in " + ".".join(map(str, self.obsoleted[:2]))
        if self.introduced is not None and self.introduced > floor:
            return "introduced in " + ".".join(map(str, self.introduced[:2]))
        return None


def _requirements(entries):
    found = {}
    for entry in entries or []:
        domain = entry.get("domain", "")
        if domain == "*":
            if entry.get("isUnconditionallyUnavailable"):
                for platform in set(DOMAINS.values()):
                    found[platform] = Requirement(unavailable=True)
            continue
        platform = DOMAINS.get(domain.lower())
        if platform is None:
            continue  # Swift language versions, application-extension domains, Linux, Windows …
        def version(key):
            value = entry.get(key)
            if not value:
                return None
            return (value.get("major", 0), value.get("minor", 0), value.get("patch", 0))
        found[platform] = Requirement(
            introduced=version("introduced"),
            unavailable=bool(entry.get("isUnconditionallyUnavailable")),
            obsoleted=version("obsoleted"),
        )
    return found


class SymbolGraphs:
    """Availability by precise USR, for every symbol of the modules extracted."""

    def __init__(self):
        self.by_usr = {}
        self.names = {}
        self.modules = set()
        # Protocol requirement USR -> USRs of its default implementations.
        self.default_implementations = {}

    def load(self, directory):
        for path in glob.glob(os.path.join(directory, "*.symbols.json")):
            with open(path, encoding="utf-8") as handle:
                graph = json.load(handle)
            module = graph["module"]["name"]
            self.modules.add(module)
            for relationship in graph.get("relationships", []):
                if relationship["kind"] == "defaultImplementationOf":
                    self.default_implementations.setdefault(relationship["target"], []).append(
                        relationship["source"])
            for symbol in graph["symbols"]:
                availability = symbol.get("availability")
                if not availability:
                    continue
                requirements = _requirements(availability)
                if requirements:
                    usr = symbol["identifier"]["precise"]
                    self.by_usr[usr] = requirements
                    self.names[usr] = module + "." + ".".join(symbol.get("pathComponents") or [])

    def requirement(self, usr, platform, floor):
        """What a use of `usr` needs on `platform`, or None. A protocol requirement newer than the
        floor is no obstacle when one of its default implementations is available at the floor:
        a compiler with that floor resolves the use to the implementation (as with the
        standard library's `FixedWidthInteger.&*`, a requirement since Swift 6 and an operator
        since Swift 4)."""
        requirement = self.by_usr.get(usr, {}).get(platform)
        if requirement is None or requirement.violated_by(floor) is None:
            return requirement
        for implementation in self.default_implementations.get(usr, []):
            other = self.by_usr.get(implementation, {}).get(platform)
            if other is None or other.violated_by(floor) is None:
                return None
        return requirement


def extract(modules, search_flags, output_dir, own_modules, jobs=2):
    """Runs swift-symbolgraph-extract for each module; returns the modules that failed."""
    os.makedirs(output_dir, exist_ok=True)

    def run(module):
        target_dir = os.path.join(output_dir, module)
        os.makedirs(target_dir, exist_ok=True)
        access = "private" if module in own_modules else "public"
        command = ["swift-symbolgraph-extract", "-module-name", module, "-target", "x86_64-unknown-linux-gnu",
                   "-output-dir", target_dir, "-minimum-access-level", access, "-skip-inherited-docs"]
        command += search_flags
        result = subprocess.run(command, capture_output=True, text=True)
        return module, target_dir, result.returncode, result.stderr

    failures = []
    directories = []
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for module, target_dir, code, stderr in pool.map(run, sorted(modules)):
            if code != 0:
                failures.append((module, stderr.strip().splitlines()[:3]))
            else:
                directories.append(target_dir)
    return directories, failures


# --- Source scopes -------------------------------------------------------------------------------

_CONDITION = re.compile(r"#(available|unavailable)\s*\(")
_ATTRIBUTE = re.compile(r"@available\s*\(")
_PLATFORM_VERSION = re.compile(r"([A-Za-z]+)\s+(\d+(?:\.\d+){0,2})")


def _blank_comments_and_strings(text):
    """The text with comments and string literals replaced by spaces (offsets kept)."""
    out = list(text)
    i, n = 0, len(text)
    depth_block = 0
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = i + 2
            depth_block = 1
            while j < n and depth_block:
                if text.startswith("/*", j):
                    depth_block += 1
                    j += 2
                elif text.startswith("*/", j):
                    depth_block -= 1
                    j += 2
                else:
                    j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == '"':
            hashes = 0
            k = i - 1
            while k >= 0 and text[k] == "#":
                hashes += 1
                k -= 1
            if text.startswith('"""', i):
                close = '"""' + "#" * hashes
                j = text.find(close, i + 3)
                j = n if j < 0 else j + len(close)
            else:
                close = '"' + "#" * hashes
                j = i + 1
                while j < n and not text.startswith(close, j) and text[j] != "\n":
                    j += 2 if (text[j] == "\\" and hashes == 0) else 1
                j = min(n, j + len(close))
            for k in range(i + 1, max(i + 1, j - 1)):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def _matching(text, open_index, opening, closing):
    depth = 0
    for k in range(open_index, len(text)):
        if text[k] == opening:
            depth += 1
        elif text[k] == closing:
            depth -= 1
            if depth == 0:
                return k
    return len(text) - 1


def _enclosing_block_end(text, index):
    """Offset of the `}` that closes the brace block containing `index` (or the end of text)."""
    depth = 0
    for k in range(index, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            if depth == 0:
                return k
            depth -= 1
    return len(text)


def _versions(arguments):
    found = {}
    for name, version in _PLATFORM_VERSION.findall(arguments):
        platform = DOMAINS.get(name.lower())
        if platform:
            found[platform] = parse_version(version)
    return found


class SourceScopes:
    """Regions of one file where `#available` or `@available` raises the floor of a platform."""

    def __init__(self, text):
        self.text = _blank_comments_and_strings(text)
        self.line_starts = [0]
        for index, character in enumerate(text):
            if character == "\n":
                self.line_starts.append(index + 1)
        self.regions = []  # (start, end, {platform: version})
        self._scan()

    def offset(self, line, column):
        if line - 1 >= len(self.line_starts):
            return len(self.text)
        return self.line_starts[line - 1] + max(0, column - 1)

    def _scan(self):
        text = self.text
        for match in _CONDITION.finditer(text):
            if match.group(1) != "available":
                continue  # `#unavailable` raises nothing in its own body.
            close = _matching(text, match.end() - 1, "(", ")")
            versions = _versions(text[match.end():close])
            keyword_start = text.rfind("\n", 0, match.start()) + 1
            statement = text[keyword_start:match.start()]
            if re.search(r"\bguard\b", statement):
                # guard #available(…) else { … }: the rest of the enclosing block.
                else_at = text.find("else", close)
                if else_at < 0:
                    continue
                else_open = text.find("{", else_at)
                else_close = _matching(text, else_open, "{", "}")
                self.regions.append((else_close, _enclosing_block_end(text, else_close + 1), versions))
            else:
                body_open = text.find("{", close)
                if body_open < 0:
                    continue
                self.regions.append((body_open, _matching(text, body_open, "{", "}"), versions))
        for match in _ATTRIBUTE.finditer(text):
            close = _matching(text, match.end() - 1, "(", ")")
            versions = _versions(text[match.end():close])
            if not versions:
                continue  # `@available(*, deprecated)` and the like
            # The declaration the attribute is on: to the end of its body, or of its line.
            line_end = text.find("\n", close)
            line_end = len(text) if line_end < 0 else line_end
            body_open = text.find("{", close)
            next_line = text[close + 1:line_end]
            declaration_line_end = line_end
            if next_line.strip() == "":
                # The attribute stands on its own line: the declaration is the next line.
                declaration_line_end = text.find("\n", line_end + 1)
                declaration_line_end = len(text) if declaration_line_end < 0 else declaration_line_end
            if 0 <= body_open <= declaration_line_end:
                self.regions.append((match.start(), _matching(text, body_open, "{", "}"), versions))
            else:
                self.regions.append((match.start(), declaration_line_end, versions))

    def floor_at(self, line, column, platform, floor):
        """The floor of `platform` at a position, raised by the scopes around it."""
        offset = self.offset(line, column)
        best = floor
        for start, end, versions in self.regions:
            if start <= offset <= end and platform in versions and versions[platform] > best:
                best = versions[platform]
        return best
