#!/usr/bin/env python3
"""Allocations per event by call site, from `perf record -e 'probe_libc:*' -g` (uprobes on libc's
malloc, calloc, realloc, posix_memalign and memalign: every call, with its stack).

    perf script -i FILE.data --time 30%-33% -F tid,time,event,ip,sym,dso | swift demangle --simplified \
        | python3 Benchmarks/perf-mallocs.py MALLOCS_PER_EVENT

MALLOCS_PER_EVENT is the benchmark's own count for the same run (`notifier mallocs/event`, the
malloc interposer's counter, whole process): the slice's calls divided by it give the events in
the slice, so each site's calls become calls per event. Take a slice well inside the run (the
notifier windows are nearly all of it).
"""
import collections
import importlib.util
import os
import re
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("stages", os.path.join(here, "perf-stages.py"))
stages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stages)

# Frames that only pass an allocation on: the allocator, the interposer, the runtime's entry
# points and the standard library's buffer makers. The site is the first frame after them.
PASS_ON = re.compile(r"^(\[unknown\]|__GI___libc_|__libc_|malloc|calloc|realloc|posix_memalign|memalign|replacement_|"
                     r"swift_slowAlloc|swift_allocObject|_swift_allocObject|swift_allocBox|swift_task_alloc|"
                     r"_allocateStringStorage|_allocateUninitializedArray|specialized _allocateUninitializedArray|"
                     r"(specialized )?_ContiguousArrayBuffer\.init|(specialized )?_ContiguousArrayBuffer\._consumeAndCreateNew|"
                     r"(specialized )?Array\._createNewBuffer|(specialized )?Array\._copyToNewBuffer|"
                     r"(specialized )?Array\.reserveCapacity|(specialized )?Array\.append|(specialized )?Array\._reserveCapacity|"
                     r"(specialized )?_copyCollectionToContiguousArray|(specialized )?_copySequenceToContiguousArray|"
                     r"(specialized )?Array\.init|(specialized )?ContiguousArray\.init|"
                     r"__DataStorage\.init|(specialized )?Data\.InlineSlice\.init|(specialized )?Data\.LargeSlice\.init|"
                     r"(specialized )?Data\._Representation\.init|(specialized )?closure #1 in Data\.init|"
                     r"(specialized )?Data\.init|_StringGuts\.|(specialized )?String\.init|_StringObject|"
                     r"(specialized )?static String\._|(specialized )?String\._|swift::|_swift_|swift_)")


def main():
    per_event = float(sys.argv[1]) if len(sys.argv) > 1 else None
    samples = list(stages.parse(sys.stdin))
    total = len(samples)
    events = total / per_event if per_event else None
    by_site = collections.Counter()
    by_stage = collections.Counter()
    site_stage = collections.defaultdict(collections.Counter)
    site_chain = collections.defaultdict(collections.Counter)
    for _, _, frames in samples:
        names = [f for f, _ in frames]
        rest = [f for f in names if not PASS_ON.search(f) and not stages.WITNESS.search(f)]
        allocator = next((f for f in names[1:] if not re.match(r"^(\[unknown\]|__GI___libc_|__libc_|replacement_|malloc|calloc|realloc)", f)),
                         "?")
        site = (rest[0] if rest else "?") + "   [via " + allocator + "]"
        own = stages.owner(frames)
        stage = own[0] if own else "other"
        if own and own[0] in ("notifier", "driver", "codec/dialect", "transport driver", "JSON parse", "socket read"):
            stage = f"{own[0]}: {own[1]}"
        by_site[site] += 1
        by_stage[stage] += 1
        site_stage[site][stage] += 1
        site_chain[site][" <- ".join(f[:70] for f in rest[1:4])] += 1
    unit = f"per event (÷ {events:,.0f} events)" if events else "share"
    print(f"allocation calls in the slice: {total:,}; {unit}")

    def show(n):
        return f"{n / events:6.2f}" if events else f"{100 * n / total:5.1f} %"

    print("\n## by owning stage")
    for stage, n in by_stage.most_common():
        print(f"{show(n)}  {stage}")
    print("\n## by call site (first frame past the allocator and the standard library's buffer makers)")
    for site, n in by_site.most_common(40):
        if events and n / events < 0.02:
            break
        print(f"{show(n)}  {site[:200]}")
        for stage, m in site_stage[site].most_common(3):
            print(f"        {show(m)}  stage: {stage}")
        for chain, m in site_chain[site].most_common(5):
            print(f"        {show(m)}  from: {chain}")


if __name__ == "__main__":
    main()
