import Foundation

/// Resource figures of the current process, read from the kernel.
package enum ProcessMetrics {
    /// The peak resident set size of the process, in bytes (`VmHWM` on
    /// Linux, `ru_maxrss` elsewhere).
    ///
    /// For example:
    ///
    /// ```swift
    /// let megabytes = Double(ProcessMetrics.peakResidentBytes()) / 1_048_576
    /// ```
    package static func peakResidentBytes() -> Int {
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
    package static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The CPU time used so far by process `pid`, in seconds, from /proc:
    /// any process of the machine, such as a database server's backend,
    /// whoever runs it. The time on CPU of each of its threads
    /// (`/proc/<pid>/task/<tid>/schedstat`, in nanoseconds), or, without
    /// it, user + system time (`/proc/<pid>/stat`, in clock ticks of 10
    /// ms, too coarse for a few milliseconds a second).
    ///
    /// For example:
    ///
    /// ```swift
    /// let before = ProcessMetrics.cpuSeconds(ofProcess: backend) ?? 0
    /// ```
    ///
    /// - important: The time of a thread that has ended is no longer
    ///   counted: exact for a process of one thread (a PostgreSQL
    ///   backend); for this process, whose dispatch threads come and go,
    ///   use `cpuSeconds()`.
    /// - returns: nil when the process does not exist (or not on Linux).
    package static func cpuSeconds(ofProcess pid: Int32) -> Double? {
        let tasks = "/proc/\(pid)/task"
        if let threads = try? FileManager.default.contentsOfDirectory(atPath: tasks) {
            let times = threads.compactMap { thread -> Double? in
                guard let text = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8),
                      let first = text.split(separator: " ").first, let nanoseconds = Double(first)
                else { return nil }
                return nanoseconds / 1e9
            }
            // A thread that ended between the listing and its read is
            // left out, as it is from the process's figures.
            if !times.isEmpty { return times.reduce(0, +) }
        }
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")")
        else { return nil }
        // After the command name, which may hold spaces and parentheses:
        // the state (field 3), …, utime (14) and stime (15), in clock ticks.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
