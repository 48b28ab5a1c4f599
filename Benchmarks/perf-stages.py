#!/usr/bin/env python3
"""Groups a `perf record -g` profile of the throughput benchmark into the stages of the event path.

    perf script -i FILE.data -F comm,tid,time,ip,sym,dso | swift demangle --simplified \
        | python3 Benchmarks/perf-stages.py

Each sample is charged to one stage:
- its *owner* is the innermost frame of the stack that matches a stage pattern below (the Swift
  runtime, malloc and libc frames are skipped, so they are charged to whoever called them);
- if the owner is the blast sender (its child process, which `perf record` follows), the sample is the sender's;
- otherwise, if the leaf (with the runtime or libc frames just above it) is malloc/free or the
  Swift allocator, the sample is "allocation"; if it is the Swift runtime (reference counting,
  metadata lookups, task switching, locks, exclusivity checks), it is "Swift runtime";
- otherwise it is the owner's stage.
Only samples between the first and the last sample under `BackendNotifier.deliver` count (the
notifier's measured windows, with the short set-up between iterations), so start-up and the
dynamic loader are left out.
"""
import collections
import re
import sys

# (stage, sub-stage, pattern) checked in this order on each frame, innermost frame first.
STAGES = [
    ("sender", "blast sender (the child process perf record follows)", r"BlastServer|ArchivePayload\.|NIOAsyncChannelHandler\._doOutboundWrites|"
     r"NIOAsyncChannelHandlerWriterDelegate|NIOAsyncChannelHandler\._didYield|WebSocketFrameEncoder|PendingStreamWritesManager|"
     r"bufferPendingWrite|writeToSocket|BaseSocketChannel\.flushNow|Socket\.write|Socket\.writev|PendingWritesManager|"
     r"NIOAsyncWriter|HeadChannelHandler"),
    ("codec/dialect", "GraphQL legacy results (LegacyResults.envelope: key lookup, rename, eventTypes)",
     r"LegacyResults|JSONDocument\.renamingMembers|JSONDocument\.members\(of|JSONDocument\.onlyMember|LegacySubscription|"
     r"LegacyEventMapping"),
    ("JSON parse", "JSONDocument parser", r"JSONDocument\.Parser|JSONDocument\.init|JSONDocument\.parse"),
    ("JSON parse", "JSONDocument reads (member lookup, string unescape)", r"JSONDocument"),
    ("codec/dialect", "AppSync codec (AppSyncCodec, AppSyncMessage)", r"AppSyncCodec|AppSyncServerMessage|AppSyncMessage|AppSyncEvent\b"),
    ("codec/dialect", "GraphQL codec (GraphQLCodec, wire message)", r"GraphQLCodec|GraphQLWireMessage|GraphQLJSON|GraphQLServerMessage"),
    ("codec/dialect", "dialect decode/deliver (envelope making)", r"AppSyncDialect|GraphQLDialect|EventEnvelope"),
    ("transport driver", "protocol machine (AppSyncConnectionMachine / GraphQLConnectionStateMachine)",
     r"AppSyncConnectionMachine|GraphQLConnectionStateMachine"),
    ("transport driver", "catch-up / dedup", r"CatchUp|Fingerprints|LegacyCopies"),
    ("transport driver", "TransportDriver loop and TransportEvents hand-off", r"TransportDriver|TransportEvents|TransportEvent\b|"
     r"EventTransport|SessionFollower"),
    ("notifier", "consumer AsyncStream (values() handler, yield, next)", r"BackendNotifier\.values|AsyncStream|notifierCost|"
     r"NotifierStream|withUnsafeContinuation"),
    ("notifier", "typed decode (EventPayloadDecoder, DocumentFields, model init, ISO 8601)", r"EventPayloadDecoder|DocumentDecoder|"
     r"DocumentFields|PayloadDecodable|PayloadCoding|ArchiveStateOutput|DevicePayloadModel|ISO8601Timestamp|OpenEnum|ArchiveStatus"),
    ("notifier", "broker (EventBroker publish/dispatch)", r"EventBroker|BrokerState|BrokerMetrics|Subscriber\b|AnyEventRecord"),
    ("notifier", "EventDelivery", r"EventDelivery"),
    ("notifier", "BackendNotifier drive/handle/deliver (incl. event teardown)", r"BackendNotifier|NotifierMetrics|SubscriptionBook|"
     r"StreamStatusBook|ObserverBook"),
    ("driver", "connection driver (ConnectionDriver, WebSocketStateMachine)", r"ConnectionDriver|WebSocketStateMachine|PendingPings|"
     r"NIOWebSocketConnection|UpgradedChannel"),
    ("driver", "hand-off queues (HandOff, FrameHandOff, WebSocketInbound, InboundBudget)", r"HandOff|WebSocketInbound|InboundBudget|"
     r"InboundCharge"),
    ("socket read", "NIO frame decode (WebSocketFrameDecoder, ByteToMessageHandler)", r"WebSocketFrameDecoder|ByteToMessage"),
    ("socket read", "socket read and event loop (readFromSocket, epoll, pipeline)", r"readFromSocket|Socket\.read|readable0|"
     r"RecvBufferAllocator|SelectableEventLoop|Selector|ChannelPipeline|ChannelHandlerContext|BaseSocketChannel|epoll|"
     r"MultiThreadedEventLoopGroup|NIOThread|ThreadOpsPosix"),
    ("metrics", "swift-metrics counters", r"CoreMetrics|Counter\.increment|MetricsSystem|Timer\.record"),
]
STAGES = [(stage, sub, re.compile(pattern)) for stage, sub, pattern in STAGES]

ALLOCATION = re.compile(r"^(__GI___libc_|_swift_stdlib_malloc_size|malloc_usable_size|malloc|free|cfree|calloc|realloc|_int_malloc|_int_free|_int_realloc|unlink_chunk|malloc_consolidate|"
                        r"sysmalloc|tcache|__libc_malloc|__libc_free|__libc_calloc|__libc_realloc|posix_memalign|aligned_alloc|"
                        r"_mid_memalign|replacement_|swift_allocObject|swift_slowAlloc|swift_deallocObject|swift_slowDealloc|"
                        r"swift_deallocClassInstance|swift_deallocUninitializedObject|_swift_allocObject|"
                        r"_int_free_merge_chunk|_int_free_create_chunk|_int_free_maybe_consolidate|arena_get2|mremap_chunk|"
                        r"__default_morecore|sbrk|brk|__brk)")
RUNTIME_KINDS = [
    ("reference counting", re.compile(r"^(swift_retain|swift_release|swift_bridgeObject|swift_unknownObject|swift_nonatomic|"
                                      r"swift::RefCounts|_swift_release_dealloc|swift_arrayDestroy|swift_arrayInit|swift_isUniquely|"
                                      r"swift_weak|swift_unowned|_swift_retain|_swift_release)")),
    ("metadata and conformance lookups", re.compile(r"(Metadata|getCache|ConcurrentReadableHashMap|LockingConcurrentMap|hashing|"
                                                    r"swift_getWitnessTable|swift_conformsTo|swift_dynamicCast|swift_getAssociated|"
                                                    r"swift_checkMetadataState|__swift_instantiate|swift_getTupleType|"
                                                    r"swift_getFunctionType|MetadataCacheKey|swift_getCanonical)")),
    ("task switching and the executor", re.compile(r"(swift_task|swift_job|swift::StackAllocator|swift_continuation|"
                                                   r"runJobInEstablishedExecutorContext|swift_asyncLet|swift_defaultActor|"
                                                   r"_dispatch_|dispatch_|swift::AsyncTask|swift_get_|swift_taskGroup|"
                                                   r"swift::TaskAllocator|swift_cvw_)")),
    ("locks, atomics, exclusivity, TLS", re.compile(r"(pthread_|__lll_|futex|AccessSet|swift_beginAccess|swift_endAccess|"
                                                     r"__tls_get_addr|os_unfair|swift_once|swift::Mutex|_raw_spin|"
                                                     r"swift::runtime::)")),
]
# Frames that are neither a stage nor a runtime cost: libc string/memory ops and the standard
# library are charged to whoever called them (skipped when looking for the owner).
NEUTRAL = re.compile(r"^(\[unknown\]|__mem|mem|__strlen|strlen|start_thread|clone|_start)")


def runtime_kind(frame):
    for kind, pattern in RUNTIME_KINDS:
        if pattern.search(frame):
            return kind
    return None


def parse(stream):
    sample = None
    for line in stream:
        line = line.rstrip("\n")
        if not line.strip():
            if sample and sample[2]:
                yield sample
            sample = None
            continue
        if not line.startswith("\t"):
            m = re.match(r"^(.*?)\s*(\d+)\s+([\d.]+):", line)
            sample = [m.group(2) if m else "?", float(m.group(3)) if m else 0.0, []]
            continue
        m = re.match(r"\s*[0-9a-f]+ (.*) \((.*)\)$", line)
        if m and sample is not None:
            sample[2].append((m.group(1), m.group(2)))
    if sample and sample[2]:
        yield sample


# Value witnesses and outlined copies are charged to the code that called them.
WITNESS = re.compile(r"^(outlined destroy|outlined consume|outlined copy|outlined retain|outlined release|destroy for|"
                     r"initializeWithCopy|initializeWithTake|assignWithCopy|assignWithTake|initializeBufferWithCopyOfBuffer|"
                     r"getEnumTagSinglePayload|storeEnumTagSinglePayload)")


def owner(frames):
    for symbol, dso in frames:
        if WITNESS.search(symbol):
            continue
        for stage, sub, pattern in STAGES:
            if pattern.search(symbol):
                return stage, sub
    return None


def classify(frames):
    own = owner(frames)
    if own and own[0] == "sender":
        return own, own
    # The leaf and the runtime / libc / kernel frames just above it.
    leafkind = None
    for symbol, dso in frames:
        if ALLOCATION.search(symbol):
            leafkind = ("allocation", "malloc/free and the Swift allocator")
            break
        kind = runtime_kind(symbol)
        if kind:
            leafkind = leafkind or ("Swift runtime", kind)
            continue
        if "kernel" in dso or NEUTRAL.search(symbol) or "libc.so" in dso or "ld-linux" in dso:
            continue
        break
    if leafkind:
        return leafkind, own or ("other", "no stage frame")
    if own:
        return own, own
    if frames and "kernel" in frames[0][1]:
        return ("other", "kernel, no stage frame"), ("other", "kernel, no stage frame")
    return ("other", "no stage frame"), ("other", "no stage frame")


def main():
    samples = list(parse(sys.stdin))
    marks = [t for _, t, frames in samples if any("BackendNotifier.deliver" in s for s, _ in frames)]
    begin, end = (min(marks), max(marks)) if marks else (0, float("inf"))
    window = [s for s in samples if begin <= s[1] <= end]
    total = len(window)
    stage = collections.Counter()
    sub = collections.Counter()
    owned = collections.Counter()
    owned_overhead = collections.Counter()
    self_time = collections.Counter()
    for _, _, frames in window:
        (st, sb), (ost, osb) = classify(frames)
        stage[st] += 1
        sub[(st, sb)] += 1
        owned[ost] += 1
        if st in ("allocation", "Swift runtime"):
            owned_overhead[(ost, st)] += 1
        self_time[frames[0][0]] += 1
    print(f"samples in the notifier window: {total} of {len(samples)} ({end - begin:.1f} s)")
    print("\n## by stage (allocation and runtime charged as such)")
    for st, n in stage.most_common():
        print(f"{st:<20} {100 * n / total:5.1f} %")
        for (s2, sb), m in sorted(sub.items(), key=lambda kv: -kv[1]):
            if s2 == st:
                print(f"    {sb:<88} {100 * m / total:5.1f} %")
    print("\n## by owning stage (allocation and runtime charged to the stage that called them)")
    for st, n in owned.most_common():
        parts = ", ".join(f"{k} {100 * owned_overhead[(st, k)] / total:.1f} %" for k in ("allocation", "Swift runtime")
                          if owned_overhead[(st, k)])
        print(f"{st:<20} {100 * n / total:5.1f} %   (of which {parts or 'none'})")
    print("\n## runtime and allocation samples by the first caller outside the runtime, malloc and libc (top 12 each)")
    for wanted in ("metadata and conformance lookups", "reference counting", "malloc/free and the Swift allocator"):
        callers = collections.Counter()
        for _, _, frames in window:
            (st, sb), _ = classify(frames)
            if sb != wanted:
                continue
            caller = next((f for f, dso in frames if not (ALLOCATION.search(f) or runtime_kind(f) or NEUTRAL.search(f)
                                                          or WITNESS.search(f) or "kernel" in dso or "libc.so" in dso)), "?")
            callers[caller] += 1
        print(f"-- {wanted}")
        for caller, n in callers.most_common(12):
            print(f"   {100 * n / total:5.1f} %  {caller[:130]}")
    print("\n## top 15 symbols by self time")
    for symbol, n in self_time.most_common(15):
        print(f"{100 * n / total:5.1f} %  {symbol[:140]}")


if __name__ == "__main__":
    main()
