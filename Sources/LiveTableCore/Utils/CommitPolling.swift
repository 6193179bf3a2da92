import Foundation
import ReactiveGRDB

/// How the live screens check a file at an interval for the commits of
/// other processes, besides inotify's file events: when the user asks
/// (`--poll SECONDS`), or when the file is on a file system where other
/// machines write without inotify seeing it (ReactiveGRDB's
/// `RemoteFileSystem`: NFS, SMB, FUSE, 9p...), or when inotify is not
/// available. The title says so: "polled every 0.1 s: fuse".
///
/// For example:
///
/// ```swift
/// let polling = CommitPolling(interval: try CommitPolling.interval(parsing: "0.5"))
/// print(polling.note(path: "/tmp/app.sqlite", reason: nil)) // polled every 0.5 s
/// ```
public struct CommitPolling: Equatable, Sendable {
    /// The intervals `--poll` accepts, in seconds: from 20 ms, about the
    /// time of a screen refresh, to a minute.
    public static let intervalRange: ClosedRange<TimeInterval> = 0.02...60

    /// The interval asked for, or nil for inotify's file events only,
    /// polled at `OtherProcessCommits.fallbackPollingInterval` where they
    /// are not enough.
    public var interval: TimeInterval?

    /// Creates the polling of the screens.
    ///
    /// - parameter interval: The interval asked for (`--poll`), or nil.
    public init(interval: TimeInterval? = nil) {
        self.interval = interval
    }

    /// The interval of `--poll SECONDS`.
    ///
    /// - throws: `CommitPollingError` when `text` is not a number of
    ///   seconds in `intervalRange`.
    public static func interval(parsing text: String) throws -> TimeInterval {
        guard let seconds = Double(decimal: text) else {
            throw CommitPollingError(text: text)
        }
        guard intervalRange.contains(seconds) else {
            throw CommitPollingError(text: text)
        }
        return seconds
    }

    /// How the screen's observations detect other processes' commits: the
    /// note for the title and the one-line reason come to `onPolled` when
    /// ReactiveGRDB polls the file by itself.
    ///
    /// - parameter path: The database file.
    /// - parameter onPolled: Called on an unspecified queue, each time a
    ///   subscription polls for a reason of its own.
    public func commits(
        path: String,
        onPolled: @escaping @Sendable (_ note: String, _ reason: String) -> Void) -> OtherProcessCommits
    {
        let polling = self
        let onPollingFallback: @Sendable (String) -> Void = { reason in
            onPolled(polling.note(path: path, reason: reason), reason)
        }
        if let interval {
            return .fileEvents(checkingEvery: interval, onPollingFallback: onPollingFallback)
        }
        return .fileEvents(onPollingFallback: onPollingFallback)
    }

    /// The title's note: "polled every 0.1 s: fuse", "polled every 0.5 s"
    /// (asked for, on a local file), "polled every 0.1 s: no inotify".
    ///
    /// - parameter path: The database file.
    /// - parameter reason: ReactiveGRDB's reason, or nil when the polling
    ///   was asked for and ReactiveGRDB gave none.
    public func note(path: String, reason: String?) -> String {
        let seconds = interval ?? OtherProcessCommits.fallbackPollingInterval
        let note = "polled every \(Self.format(seconds)) s"
        guard let reason else { return note }
        if let fileSystem = RemoteFileSystem(containingFileAt: path),
            reason == fileSystem.description || reason == RemoteWALFile(path: path)?.description
        {
            return "\(note): \(fileSystem.name)"
        }
        // inotify's limits are reached: ReactiveGRDB's reason says which.
        return "\(note): no inotify"
    }

    /// "0.1", "0.02", "60", "1.5".
    private static func format(_ seconds: TimeInterval) -> String {
        String(format: "%g", seconds)
    }
}

/// The error of a `--poll` value that is not a number of seconds in
/// `CommitPolling.intervalRange`.
public struct CommitPollingError: Error, CustomStringConvertible {
    /// The value given.
    public var text: String

    /// "the interval must be a number of seconds from 0.02 to 60": the
    /// command line names the value and the option.
    public var description: String {
        let range = CommitPolling.intervalRange
        return "the interval must be a number of seconds from \(String(format: "%g", range.lowerBound)) "
            + "to \(String(format: "%g", range.upperBound))"
    }
}
