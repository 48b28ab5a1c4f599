extension MemoryTrend {
    /// A least-squares line through memory samples after the warm-up, in MiB per hour. Pure.
    ///
    /// Growth is sustained when three things hold: the slope over every sample, less two
    /// standard errors (noise widens the error, so a noisy run must climb more clearly), exceeds
    /// the bound; and the slopes fitted over the first half and over the second half each exceed
    /// it too. A steady leak passes all three. A single step lifts the overall slope, but each
    /// half is flat on one side of it, so a step is left to the jump check. Runs shorter than
    /// the minimum span are fitted and reported, not judged.
    package struct Slope: Sendable, Equatable {
        /// The fitted slope over every sample after the warm-up, MiB per hour.
        package var mebibytesPerHour: Double
        /// The slope's standard error, MiB per hour (zero with fewer than three samples).
        package var standardError: Double
        /// The slope fitted over the first half of the samples, MiB per hour.
        package var firstHalf: Double
        /// The slope fitted over the second half, MiB per hour.
        package var secondHalf: Double
        /// The steepest sustained growth allowed, MiB per hour.
        package var bound: Double
        /// Seconds between the first and the last sample fitted.
        package var span: Double
        /// The fewest seconds between first and last sample that are judged.
        package var minimumSpan: Double
        /// Whether the span was long enough to judge.
        package var judged: Bool { span >= minimumSpan }

        /// Whether memory climbs faster than the bound, sustained over the run.
        package var climbs: Bool {
            judged && mebibytesPerHour - 2 * standardError > bound && firstHalf > bound && secondHalf > bound
        }

        /// Fits `points` (seconds, bytes); nil with fewer than four points or no time between them.
        /// - Parameters:
        ///   - points: The samples as (elapsed seconds, bytes), in time order.
        ///   - bound: The steepest sustained growth allowed, MiB per hour.
        ///   - minimumSpan: The fewest seconds between first and last sample that are judged.
        package init?(fitting points: [(Double, Double)], bound: Double, minimumSpan: Double) {
            guard points.count >= 4, let whole = Self.fit(points) else { return nil }
            let half = points.count / 2
            guard let first = Self.fit(Array(points.prefix(half))), let second = Self.fit(Array(points.suffix(points.count - half)))
            else { return nil }
            let perHour = 3600 / 1_048_576.0
            mebibytesPerHour = whole.slope * perHour
            standardError = whole.standardError * perHour
            firstHalf = first.slope * perHour
            secondHalf = second.slope * perHour
            self.bound = bound
            span = points[points.count - 1].0 - points[0].0
            self.minimumSpan = minimumSpan
        }

        /// The least-squares slope of y over x (units of y per unit of x) and its standard error;
        /// nil when every x is the same.
        static func fit(_ points: [(Double, Double)]) -> (slope: Double, standardError: Double)? {
            let n = Double(points.count)
            guard n >= 2 else { return nil }
            let meanX = points.reduce(0) { $0 + $1.0 } / n
            let meanY = points.reduce(0) { $0 + $1.1 } / n
            var sxx = 0.0
            var sxy = 0.0
            for (x, y) in points {
                sxx += (x - meanX) * (x - meanX)
                sxy += (x - meanX) * (y - meanY)
            }
            guard sxx > 0 else { return nil }
            let slope = sxy / sxx
            guard n > 2 else { return (slope, 0) }
            let intercept = meanY - slope * meanX
            let residuals = points.reduce(0.0) { sum, point in
                let residual = point.1 - (intercept + slope * point.0)
                return sum + residual * residual
            }
            return (slope, (residuals / (n - 2) / sxx).squareRoot())
        }
    }
}
