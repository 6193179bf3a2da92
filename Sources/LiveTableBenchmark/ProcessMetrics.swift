import Foundation

/// Resource figures of the current process, read from the kernel.
public enum ProcessMetrics {
    /// The peak resident set size of the process, in bytes (`VmHWM` on
    /// Linux, `ru_maxrss` elsewhere).
    ///
    /// For example:
    ///
    /// ```swift
    /// let megabytes = Double(ProcessMetrics.peakResidentBytes()) / 1_048_576
    /// ```
    public static func peakResidentBytes() -> Int {
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
           let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        {
            return kilobytes * 1024
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
    }

    /// The CPU time used so far by the process (user + system), in seconds.
    ///
    /// For example:
    ///
    /// ```swift
    /// let before = ProcessMetrics.cpuSeconds()
    /// // ... wait while nothing happens ...
    /// let idleCPU = ProcessMetrics.cpuSeconds() - before
    /// ```
    public static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
