"""Platform floors from package manifests, and the check that every target's floor is at least
the floor of every product it depends on (what SwiftPM enforces on macOS only).

Everything is read from the manifests themselves (`swift package dump-package` in the root and in
each resolved dependency's checkout), never from a hand-kept list.
"""

import json
import subprocess

# SwiftPM's defaults for a platform a manifest does not list (PackageModel's
# `PlatformRegistry`/`SupportedPlatform` defaults for tools versions 5.9 and later).
DEFAULT_FLOORS = {
    "macos": (10, 13, 0),
    "maccatalyst": (13, 0, 0),
    "ios": (12, 0, 0),
    "tvos": (12, 0, 0),
    "watchos": (4, 0, 0),
    "visionos": (1, 0, 0),
}

DISPLAY = {
    "macos": "macOS",
    "maccatalyst": "Mac Catalyst",
    "ios": "iOS",
    "tvos": "tvOS",
    "watchos": "watchOS",
    "visionos": "visionOS",
}


def parse_version(text):
    parts = [int(p) for p in str(text).split(".") if p != ""]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts[:3])


def show(version):
    return ".".join(str(p) for p in version[:2]) if len(version) < 3 or version[2] == 0 \
        else ".".join(str(p) for p in version)


def swift_package(args, package_path):
    result = subprocess.run(["swift", "package", "--package-path", package_path] + args,
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"swift package {' '.join(args)} in {package_path} failed:\n{result.stderr}")
    return json.loads(result.stdout)


class Package:
    def __init__(self, identity, path, manifest):
        self.identity = identity
        self.path = path
        self.name = manifest["name"]
        self.manifest = manifest
        self.declared = {p["platformName"]: parse_version(p["version"]) for p in manifest.get("platforms") or []}
        self.targets = {t["name"]: t for t in manifest["targets"]}
        self.products = {p["name"]: p for p in manifest["products"]}
        # Dependency identity by every name a manifest may use for it (identity or declared name).
        self.dependencies = {}
        for dependency in manifest["dependencies"]:
            for kind in ("sourceControl", "fileSystem", "registry"):
                for entry in dependency.get(kind) or []:
                    identity = entry["identity"]
                    self.dependencies[identity.lower()] = identity
                    if entry.get("nameForTargetDependencyResolutionOnly"):
                        self.dependencies[entry["nameForTargetDependencyResolutionOnly"].lower()] = identity

    def floor(self, platform):
        return self.declared.get(platform, DEFAULT_FLOORS[platform])


def load_graph(root_path):
    """The root package and every resolved dependency, by identity."""
    tree = swift_package(["show-dependencies", "--format", "json"], root_path)
    packages = {}

    def visit(node, is_root):
        identity = node["identity"]
        if identity in packages:
            return
        manifest = swift_package(["dump-package"], node["path"])
        packages[identity] = Package(identity, node["path"], manifest)
        if is_root:
            packages["__root__"] = packages[identity]
        for child in node["dependencies"]:
            visit(child, False)

    visit(tree, True)
    return packages


def _applies(condition, platform):
    if not condition:
        return True
    names = condition.get("platformNames") or []
    return not names or platform in names


def check_floors(packages, platforms):
    """Violations of "a target's floor is at least the floor of every product it depends on".

    Walks every target of the root package and every target a used product reaches in the
    dependencies; `platforms` are the root's declared platforms (the ones the package promises).
    Returns a list of (message, details).
    """
    root = packages["__root__"]
    problems = []
    seen = set()
    work = [(root.identity, name) for name in root.targets]

    while work:
        identity, target_name = work.pop()
        if (identity, target_name) in seen:
            continue
        seen.add((identity, target_name))
        package = packages[identity]
        target = package.targets.get(target_name)
        if target is None:
            continue
        for dependency in target.get("dependencies", []):
            if "target" in dependency:
                work.append((identity, dependency["target"][0]))
                continue
            if "byName" in dependency:
                name, condition = dependency["byName"][0], dependency["byName"][1]
                if name in package.targets:
                    work.append((identity, name))
                    continue
                # A product of one of the package's dependencies, found by its name alone.
                product_name = name
                package_name = next((packages[i].identity for i in set(package.dependencies.values())
                                     if i in packages and name in packages[i].products), name)
            else:
                product_name, package_name, _aliases, condition = dependency["product"]
            dependency_identity = package.dependencies.get((package_name or "").lower())
            if dependency_identity is None or dependency_identity not in packages:
                problems.append((f"{package.name}/{target_name}: cannot find package '{package_name}' "
                                 f"of product '{product_name}'", None))
                continue
            provider = packages[dependency_identity]
            product = provider.products.get(product_name)
            if product is None:
                problems.append((f"{package.name}/{target_name}: package '{provider.name}' has no product "
                                 f"'{product_name}'", None))
                continue
            for platform in platforms:
                if not _applies(condition, platform):
                    continue
                ours, theirs = package.floor(platform), provider.floor(platform)
                if theirs > ours:
                    where = "declared" if platform in provider.declared else "default"
                    problems.append((
                        f"{package.name}/{target_name} ({DISPLAY[platform]} {show(ours)}) depends on product "
                        f"'{product_name}' of {provider.identity}, which requires {DISPLAY[platform]} "
                        f"{show(theirs)} ({where} in {provider.path}/Package.swift)",
                        {"platform": platform, "package": provider.identity, "product": product_name}))
            for product_target in product["targets"]:
                work.append((dependency_identity, product_target))
    return problems
