import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reports the writes to some files of a directory, their creation,
/// renaming and removal, and the removal of the directory, as Linux's
/// inotify sees them: no polling, no CPU while nothing changes.
///
/// The directory is watched rather than the files, so that a file created
/// later (SQLite creates the `-wal` file of a database at its first write,
/// and a `-journal` file at each transaction in rollback mode) is watched
/// too.
///
/// For example:
///
/// ```swift
/// let source = try FileChangeSource(
///     directory: "/tmp", names: ["players.sqlite", "players.sqlite-wal"],
///     queue: DispatchQueue(label: "changes"),
///     onChange: { events in print(events) })
/// ```
// @unchecked Sendable: the read source is set in `init` and never changes;
// its handlers run on its queue.
final class FileChangeSource: @unchecked Sendable {
    /// What happened to the watched files since the last report.
    struct Events: OptionSet, Sendable {
        let rawValue: Int

        /// A watched file was written, or closed after a write.
        static let written = Events(rawValue: 1 << 0)
        /// A watched file was created, removed, or renamed, or the kernel
        /// dropped events: the files may not be the ones that were open.
        static let moved = Events(rawValue: 1 << 1)
        /// The directory was removed or renamed: nothing is watched anymore.
        static let directoryGone = Events(rawValue: 1 << 2)
        /// A watched file whose name ends with `-wal` was written: a WAL
        /// commit becomes visible after its last write, with no event.
        static let walWritten = Events(rawValue: 1 << 3)
    }

    private let source: any DispatchSourceRead
    /// True while `suspend()` holds the events back. Only accessed on the
    /// queue of the source, except in `deinit`.
    private(set) var isSuspended = false

    /// Starts watching.
    ///
    /// - parameter directory: The directory of the files.
    /// - parameter names: The names of the watched files, in `directory`.
    /// - parameter queue: The queue of `onChange`.
    /// - parameter onChange: Called on `queue` with what happened to the
    ///   watched files. Events in quick succession may be reported once.
    /// - throws: `FileChangeSourceError` if the directory can not be
    ///   watched: it does not exist, or the system's limit of inotify
    ///   instances (`EMFILE`) or watches (`ENOSPC`) is reached.
    init(
        directory: String,
        names: Set<String>,
        queue: DispatchQueue,
        onChange: @escaping @Sendable (Events) -> Void) throws
    {
        let fileDescriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fileDescriptor >= 0 else {
            throw FileChangeSourceError(path: directory, code: errno)
        }
        let mask = IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE
            | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF
        guard inotify_add_watch(fileDescriptor, directory, UInt32(mask)) >= 0 else {
            let code = errno
            close(fileDescriptor)
            throw FileChangeSourceError(path: directory, code: code)
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
        // Only the event handler uses the buffer, one call at a time.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        source.setEventHandler {
            let events = Self.readEvents(fileDescriptor, into: buffer, matching: names)
            if !events.isEmpty {
                onChange(events)
            }
        }
        source.setCancelHandler {
            close(fileDescriptor)
            buffer.deallocate()
        }
        source.resume()
    }

    deinit {
        cancel()
    }

    /// Stops watching. `onChange` is not called after the current call,
    /// if any, returns.
    func cancel() {
        source.cancel()
        // A suspended source can not be released: resume it, cancelled.
        resume()
    }

    /// Holds the events back, in the kernel, until `resume()`: nothing
    /// wakes up for them meanwhile. Call it on the source's queue.
    func suspend() {
        guard !isSuspended else { return }
        isSuspended = true
        source.suspend()
    }

    /// Reports the events held back, and the next ones. Call it on the
    /// source's queue.
    func resume() {
        guard isSuspended else { return }
        isSuspended = false
        source.resume()
    }

    /// Reads the pending events, and returns what they tell about the files
    /// of `names` and the directory.
    private static func readEvents(
        _ fileDescriptor: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        matching names: Set<String>) -> Events
    {
        let headerSize = MemoryLayout<inotify_event>.size
        let moves = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO)
        let directoryGone = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)
        var events: Events = []
        while true {
            let count = read(fileDescriptor, buffer.baseAddress, buffer.count)
            guard count > 0 else { break }  // EAGAIN: no more events
            var offset = 0
            while offset + headerSize <= count {
                let event = buffer.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameBytes = buffer[(offset + headerSize)..<(offset + headerSize + Int(event.len))]
                offset += headerSize + Int(event.len)
                if event.mask & directoryGone != 0 {
                    events.insert(.directoryGone)
                } else if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    // The kernel dropped events: anything may have happened.
                    events.formUnion([.written, .moved, .walWritten])
                } else {
                    let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                    guard names.contains(name) else { continue }
                    events.insert(event.mask & moves != 0 ? [.written, .moved] : .written)
                    if name.hasSuffix("-wal") { events.insert(.walWritten) }
                }
            }
        }
        return events
    }
}

/// The error of a `FileChangeSource` that can not watch its directory.
struct FileChangeSourceError: Error, CustomStringConvertible {
    /// The watched directory.
    var path: String
    /// The `errno` of the failed call.
    var code: Int32

    var description: String {
        switch code {
        case EMFILE:
            return "cannot watch \"\(path)\": the limit of inotify instances is reached (fs.inotify.max_user_instances)"
        case ENOSPC:
            return "cannot watch \"\(path)\": the limit of inotify watches is reached (fs.inotify.max_user_watches)"
        default:
            return "cannot watch \"\(path)\": \(String(cString: strerror(code)))"
        }
    }
}
