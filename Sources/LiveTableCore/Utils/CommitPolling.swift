import Foundation
import ReactiveGRDB

/// How the live screens poll a file for other processes' commits besides inotify: when asked
/// (`--poll SECONDS`), on a file system where other machines write unseen by inotify (NFS,
/// SMB, FUSE...), or without inotify. The title says so: "polled every 0.1 s: fuse".
package struct CommitPolling: Equatable, Sendable {
    /// The intervals `--poll` accepts, in seconds: from 20 ms, about the
    /// time of a screen refresh, to a minute.
    package static let intervalRange: ClosedRange<TimeInterval> = 0.02...60

    /// The interval asked for, or nil for inotify's file events only,
    /// polled at `OtherProcessCommits.fallbackPollingInterval` where they
    /// are not enough.
    package var interval: TimeInterval?

    package init(interval: TimeInterval? = nil) {
        self.interval = interval
    }

    package static func interval(parsing text: String) throws -> TimeInterval {
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
    package func commits(
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

    /// The title's note: "polled every 0.1 s: fuse", "polled every 0.5 s".
    package func note(path: String, reason: String?) -> String {
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

    private static func format(_ seconds: TimeInterval) -> String {
        String(format: "%g", seconds)
    }
}

/// The error of a `--poll` value that is not a number of seconds in
/// `CommitPolling.intervalRange`.
package struct CommitPollingError: Error, CustomStringConvertible {
    package var text: String

    /// "the interval must be a number of seconds from 0.02 to 60": the
    /// command line names the value and the option.
    package var description: String {
        let range = CommitPolling.intervalRange
        return "the interval must be a number of seconds from \(String(format: "%g", range.lowerBound)) "
            + "to \(String(format: "%g", range.upperBound))"
    }
}
