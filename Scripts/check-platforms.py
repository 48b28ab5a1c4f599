#!/usr/bin/env python3
"""Checks Switchboard's Apple platform floors on Linux, where the toolchain never does.

1. Every target's floor is at least the floor of every product it depends on, read from the
   dependencies' own manifests (`swift package dump-package` in each checkout). SwiftPM refuses
   such a graph on macOS; on Linux it says nothing.
2. No declaration that the package's non-test targets reference has an Apple availability above
   the floor, unless the use is inside `if #available` / `guard #available` or under `@available`.
3. The library products use none of Apple's "required reason" APIs (file timestamps, system boot
   time, disk space, active keyboards, user defaults), or ship a PrivacyInfo.xcprivacy.
   The references come from the compiler's index store (written by every debug build); the
   availability from symbol graphs of the toolchain's and the dependencies' modules, which keep
   the Apple `@available` attributes on Linux.

Usage:
    Scripts/check-platforms.py [--package-path DIR] [--skip-build] [--traits T] [--verbose]

Exits 0 when both checks pass, 1 when either finds a problem, 2 when it cannot run.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "platform-check"))

import availability  # noqa: E402
import indexstore  # noqa: E402
import manifests  # noqa: E402

# Modules every Swift file may use without an import that names them.
IMPLICIT_MODULES = {"Swift", "_Concurrency", "_StringProcessing", "Synchronization", "Observation",
                    "Distributed", "RegexBuilder", "Dispatch", "Foundation", "FoundationEssentials",
                    "FoundationInternationalization"}
INDEX_RELATIONS = (indexstore.REL_CONTAINEDBY | indexstore.REL_CHILDOF | indexstore.REL_CALLEDBY
                   | indexstore.REL_ACCESSOROF | indexstore.REL_EXTENDEDBY)


def toolchain_library():
    swiftc = subprocess.run(["which", "swiftc"], capture_output=True, text=True).stdout.strip()
    usr = os.path.dirname(os.path.dirname(os.path.realpath(swiftc)))
    path = os.path.join(usr, "lib", "libIndexStore.so")
    if not os.path.exists(path):
        raise RuntimeError(f"libIndexStore.so not found beside the toolchain ({path})")
    return path


def build_directory(package_path):
    result = subprocess.run(["swift", "build", "--package-path", package_path, "--show-bin-path"],
                            capture_output=True, text=True, check=True)
    return os.path.realpath(result.stdout.strip())


def compile_flags(build_yaml, modules):
    """The module search flags SwiftPM passed when it compiled `modules` (from its build manifest)."""
    flags = []
    seen = set()
    args_line = re.compile(r'^\s*args: (\[.*\])\s*$')
    with open(build_yaml, encoding="utf-8") as handle:
        for line in handle:
            match = args_line.match(line)
            if not match:
                continue
            args = json.loads(match.group(1))
            if "-module-name" not in args or args[args.index("-module-name") + 1] not in modules:
                continue
            i = 0
            while i < len(args):
                arg, pair = args[i], None
                if arg == "-I" and i + 1 < len(args):
                    pair, i = (arg, args[i + 1]), i + 2
                elif arg == "-Xcc" and i + 1 < len(args):
                    nested = args[i + 1]
                    if nested == "-I" and i + 3 < len(args) and args[i + 2] == "-Xcc":
                        pair, i = ("-Xcc", "-I", "-Xcc", args[i + 3]), i + 4
                    elif nested.startswith("-fmodule-map-file=") or nested.startswith("-I"):
                        pair, i = ("-Xcc", nested), i + 2
                    else:
                        i += 2
                else:
                    i += 1
                if pair is not None and pair not in seen:
                    seen.add(pair)
                    flags.extend(pair)
    return flags


def source_directories(root):
    """Directories of the root package's targets that are not tests."""
    directories = []
    for target in root.manifest["targets"]:
        if target["type"] in ("test", "plugin", "macro", "binary"):
            continue
        path = target.get("path") or os.path.join("Sources", target["name"])
        directories.append(os.path.realpath(os.path.join(root.path, path)) + os.sep)
    return directories


def collect_references(store, directories):
    """(units, own modules, imported modules) of the package's non-test sources."""
    newest = {}
    for name in store.unit_names():
        unit = store.unit(name)
        main = os.path.realpath(unit.main_file) if unit.main_file else ""
        # Swift sources only: a C target's units (the soak's malloc shim) name no Swift module,
        # and C declares no Apple availability of its own here.
        if not main.endswith(".swift") or not os.path.exists(main) or not any(main.startswith(d) for d in directories):
            continue
        modified = os.path.getmtime(os.path.join(store._units_dir, name))
        if main not in newest or modified > newest[main][0]:
            newest[main] = (modified, unit)
    units = [unit for _, unit in newest.values()]
    own = {unit.module for unit in units}
    imported = set()
    for unit in units:
        imported.update(unit.module_dependencies)
    return units, own, imported


def check_references(store, units, graphs, floors, verbose):
    problems = {}
    counted = 0
    with_availability = set()
    for unit in units:
        path = os.path.realpath(unit.main_file)
        with open(path, encoding="utf-8") as handle:
            scopes = availability.SourceScopes(handle.read())
        for record, record_path in unit.records:
            if os.path.realpath(record_path) != path:
                continue
            for occurrence in store.occurrences(record):
                if not occurrence.roles & indexstore.ROLE_REFERENCE:
                    continue
                if occurrence.roles & indexstore.ROLE_IMPLICIT and occurrence.name == "next(isolation:)":
                    # `for await` written by the compiler: it calls `next(isolation:)` only where the
                    # deployment target has it (macOS 15, iOS 18, …) and `next()` below that.
                    continue
                counted += 1
                requirements = graphs.by_usr.get(occurrence.usr)
                if not requirements:
                    continue
                with_availability.add(occurrence.usr)
                for platform, floor in floors.items():
                    if platform not in requirements:
                        continue
                    effective = floor
                    for roles, related_usr, _name in occurrence.related:
                        if roles & INDEX_RELATIONS:
                            container = graphs.by_usr.get(related_usr, {}).get(platform)
                            if container and container.introduced and container.introduced > effective:
                                effective = container.introduced
                    effective = scopes.floor_at(occurrence.line, occurrence.column, platform, effective)
                    requirement = graphs.requirement(occurrence.usr, platform, effective)
                    why = requirement.violated_by(effective) if requirement else None
                    if why:
                        problem = problems.setdefault(occurrence.usr, {
                            "declaration": graphs.names.get(occurrence.usr, occurrence.name),
                            "platforms": {}, "uses": []})
                        problem["platforms"][platform] = f"{why} (floor {manifests.show(effective)})"
                        use = f"{os.path.relpath(path)}:{occurrence.line}"
                        if use not in problem["uses"]:
                            problem["uses"].append(use)
    return counted, with_availability, problems


# Apple's "required reason" APIs (privacy manifests): a library that uses one must ship a
# PrivacyInfo.xcprivacy naming the reason. Swift members by name in Foundation, C functions by USR.
REQUIRED_REASON_MEMBERS = {
    "file timestamp": {"creationDate", "modificationDate", "fileModificationDate", "contentModificationDateKey",
                       "creationDateKey", "contentAccessDateKey", "attributeModificationDateKey"},
    "system boot time": {"systemUptime"},
    "disk space": {"volumeAvailableCapacityKey", "volumeAvailableCapacityForImportantUsageKey",
                   "volumeAvailableCapacityForOpportunisticUsageKey", "volumeTotalCapacityKey", "systemFreeSize",
                   "systemSize"},
    "active keyboards": {"activeInputModes"},
    "user defaults": {"UserDefaults"},
}
REQUIRED_REASON_FUNCTIONS = {
    "file timestamp": {"stat", "fstat", "fstatat", "lstat", "getattrlist", "getattrlistbulk", "fgetattrlist",
                       "getattrlistat"},
    "system boot time": {"mach_absolute_time"},
    "disk space": {"statfs", "statvfs", "fstatfs", "fstatvfs"},
}


def required_reason_uses(store, units, product_modules):
    """[(category, name, file:line)] of required-reason APIs the library products' sources use."""
    found = []
    for unit in units:
        if unit.module not in product_modules:
            continue
        path = os.path.realpath(unit.main_file)
        for record, record_path in unit.records:
            if os.path.realpath(record_path) != path:
                continue
            for occurrence in store.occurrences(record):
                if not occurrence.roles & indexstore.ROLE_REFERENCE:
                    continue
                base = occurrence.name.split("(")[0]
                categories = []
                if occurrence.usr.startswith("c:@F@"):
                    categories = [c for c, names in REQUIRED_REASON_FUNCTIONS.items() if base in names]
                elif "Foundation" in occurrence.usr:
                    categories = [c for c, names in REQUIRED_REASON_MEMBERS.items() if base in names]
                for category in categories:
                    found.append((category, occurrence.name, f"{os.path.relpath(path)}:{occurrence.line}"))
    return found


def library_product_modules(root):
    """The modules of the root package's library products."""
    modules = set()
    for product in root.manifest["products"]:
        if "library" in product["type"]:
            modules.update(product["targets"])
    return modules


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package-path", default=".")
    parser.add_argument("--skip-build", action="store_true", help="use the index store of the last debug build")
    parser.add_argument("--traits", default="SwiftConfiguration", help="traits to build with (default: %(default)s)")
    parser.add_argument("--verbose", action="store_true")
    options = parser.parse_args()
    package_path = os.path.realpath(options.package_path)
    started = time.monotonic()

    if not options.skip_build:
        command = ["swift", "build", "--package-path", package_path]
        if options.traits:
            command += ["--traits", options.traits]
        if subprocess.run(command).returncode != 0:
            print("check-platforms: the build failed", file=sys.stderr)
            return 2

    packages = manifests.load_graph(package_path)
    root = packages["__root__"]
    floors = {platform: version for platform, version in root.declared.items()
              if platform in manifests.DEFAULT_FLOORS}
    print("Declared floors: " + ", ".join(f"{manifests.DISPLAY[p]} {manifests.show(v)}" for p, v in floors.items()))
    failed = False

    # 1. Products.
    floor_problems = manifests.check_floors(packages, floors)
    print(f"\n[1] Target floors against the products they depend on ({len(packages) - 1} packages' manifests)")
    for message, _ in floor_problems:
        print("  error: " + message)
    if floor_problems:
        failed = True
    else:
        print("  ok: every target's floor is at least that of every product it depends on")

    # 2. References.
    bin_path = build_directory(package_path)
    store_path = os.path.join(bin_path, "index", "store")
    if not os.path.isdir(store_path):
        print(f"check-platforms: no index store at {store_path}; build in debug first", file=sys.stderr)
        return 2
    store = indexstore.IndexStore(store_path, toolchain_library())
    units, own, imported = collect_references(store, source_directories(root))
    modules = (imported | IMPLICIT_MODULES | own)
    modules = {m for m in modules if m in IMPLICIT_MODULES or m in own
               or os.path.exists(os.path.join(bin_path, "Modules", m + ".swiftmodule"))}
    build_yaml = os.path.join(os.path.dirname(bin_path), "debug.yaml")
    if not os.path.exists(build_yaml):
        build_yaml = os.path.join(os.path.dirname(os.path.dirname(bin_path)), "debug.yaml")
    flags = ["-I", os.path.join(bin_path, "Modules")] + compile_flags(build_yaml, own)
    graphs = availability.SymbolGraphs()
    with tempfile.TemporaryDirectory(prefix="check-platforms-") as scratch:
        directories, failures = availability.extract(modules, flags, scratch, own)
        for directory in directories:
            graphs.load(directory)
    for module, lines in failures:
        print(f"  error: no symbol graph for {module}: {' '.join(lines)}")
    if failures:
        failed = True
    counted, with_availability, problems = check_references(store, units, graphs, floors, options.verbose)
    print(f"\n[2] References from {len(units)} source files in {len(own)} modules to declarations with Apple "
          f"availability ({len(graphs.modules)} modules' symbol graphs)")
    print(f"  {counted} references, {len(with_availability)} distinct declarations with Apple availability")
    for problem in sorted(problems.values(), key=lambda item: item["declaration"]):
        uses = problem["uses"]
        shown = ", ".join(uses[:6]) + (f" and {len(uses) - 6} more" if len(uses) > 6 else "")
        needs = "; ".join(f"{manifests.DISPLAY[p]}: {why}" for p, why in sorted(problem["platforms"].items()))
        print(f"  error: {problem['declaration']} ({needs})\n         used at {shown}")
    if problems:
        failed = True
    else:
        print("  ok: none is above the floor outside `#available` or `@available`")
    # 3. Privacy manifest.
    product_modules = library_product_modules(root)
    uses = required_reason_uses(store, units, product_modules)
    manifests_found = sorted(os.path.relpath(os.path.join(d, f), package_path)
                             for d, _, files in os.walk(os.path.join(package_path, "Sources"))
                             for f in files if f == "PrivacyInfo.xcprivacy")
    print(f"\n[3] Apple required-reason APIs used by the library products ({', '.join(sorted(product_modules))})")
    for category, name, use in uses:
        print(f"  uses {name} ({category}) at {use}")
    if uses and not manifests_found:
        print("  error: required-reason APIs are used but no PrivacyInfo.xcprivacy is shipped")
        failed = True
    elif not uses:
        print("  ok: none is used, so no privacy manifest is needed" +
              (f" (found: {', '.join(manifests_found)})" if manifests_found else ""))
    else:
        print(f"  ok: declared in {', '.join(manifests_found)}")
    print(f"\ncheck-platforms: {'FAILED' if failed else 'passed'} in {time.monotonic() - started:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (RuntimeError, subprocess.CalledProcessError) as error:
        print(f"check-platforms: {error}", file=sys.stderr)
        sys.exit(2)
