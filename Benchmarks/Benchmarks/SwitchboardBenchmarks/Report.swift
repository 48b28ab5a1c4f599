import Benchmark
import Foundation

/// Records a figure with the benchmark tool and, when `SWITCHBOARD_BENCH_REPORT` names a file,
/// appends it there as a tab-separated line (benchmark, figure, value) for `run.sh`'s table.
enum Report {
    static func record(_ benchmark: Benchmark, _ metric: BenchmarkMetric, _ value: Int) {
        benchmark.measurement(metric, value)
        append("\(benchmark.name)\t\(metric.description)\t\(value)\n")
    }

    /// A figure with one decimal in `run.sh`'s table (the benchmark tool, which takes integers,
    /// gets it rounded).
    static func record(_ benchmark: Benchmark, _ metric: BenchmarkMetric, tenths value: Double) {
        benchmark.measurement(metric, Int(value.rounded()))
        let text = String(format: "%.1f", value)
        append("\(benchmark.name)\t\(metric.description)\t\(text)\n")
    }

    private static func append(_ line: String) {
        guard let path = ProcessInfo.processInfo.environment["SWITCHBOARD_BENCH_REPORT"] else { return }
        guard let handle = FileHandle(forWritingAtPath: path) ?? create(path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(line.utf8))
    }

    private static func create(_ path: String) -> FileHandle? {
        guard FileManager.default.createFile(atPath: path, contents: nil) else { return nil }
        return FileHandle(forWritingAtPath: path)
    }
}
