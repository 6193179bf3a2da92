/// Summary statistics of measured durations.
package struct LatencySummary: Equatable, Sendable {
    /// The number of samples.
    package var count: Int
    /// The median, in milliseconds.
    package var p50: Double
    /// The 99th percentile, in milliseconds.
    package var p99: Double

    /// Summarizes samples given in seconds, with nearest-rank percentiles.
    ///
    /// For example:
    ///
    /// ```swift
    /// let summary = LatencySummary(seconds: [0.001, 0.002, 0.003])
    /// summary.p50 // 2.0
    /// ```
    ///
    /// - returns: nil when there is no sample.
    package init?(seconds samples: [Double]) {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        func percentile(_ p: Double) -> Double {
            // Nearest rank: the smallest sample such that p% of the samples
            // are less or equal to it.
            let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
            return sorted[min(max(rank, 1), sorted.count) - 1] * 1000
        }
        count = samples.count
        p50 = percentile(50)
        p99 = percentile(99)
    }
}
