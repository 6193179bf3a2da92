import Dispatch
import Foundation
import Synchronization
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
/// A thread of its own waits for the events, and runs `onChange` on the
/// queue with `sync`, which runs it on that thread: one wake-up per batch
/// of events. A dispatch read source woke three threads for each (the
/// manager thread for the descriptor, a worker for the handler, the
/// manager again to watch the descriptor anew), which cost a viewer of a
/// busy file more than its reads.
///
/// For example:
///
/// ```swift
/// let source = try FileChangeSource(
///     directory: "/tmp", names: ["players.sqlite", "players.sqlite-wal"],
///     queue: DispatchQueue(label: "changes"),
///     onChange: { events in print(events) })
/// ```
final class FileChangeSource: Sendable {
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

    private let pump: EventPump

    /// True while `suspend()` holds the events back. Read it on the queue
    /// of the source.
    var isSuspended: Bool { pump.control.withLock(\.isSuspended) }

    /// The name of the thread that waits for the events and runs `onChange`.
    /// Linux keeps 15 characters of a thread's name.
    static let threadName = "GRDB.FileChange"

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
        // A pipe wakes the thread up: a resume, the cancel.
        var wake: [Int32] = [-1, -1]
        guard pipe(&wake) == 0 else {
            let code = errno
            close(fileDescriptor)
            throw FileChangeSourceError(path: directory, code: code)
        }
        for descriptor in wake {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        pump = EventPump(
            fileDescriptor: fileDescriptor, wake: (read: wake[0], write: wake[1]), names: names, queue: queue,
            onChange: onChange)
        let pump = self.pump
        Thread {
            Thread.current.name = Self.threadName
            pump.run()
        }.start()
    }

    deinit {
        cancel()
    }

    /// Stops watching. `onChange` is not called after the current call,
    /// if any, returns.
    func cancel() {
        pump.control.withLock { $0.isCancelled = true }
        pump.wakeUp()
    }

    /// Holds the events back, in the kernel, until `resume()`: nothing
    /// wakes up for them meanwhile. Call it on the source's queue.
    func suspend() {
        pump.control.withLock { $0.isSuspended = true }
    }

    /// Reports the events held back, and the next ones. Call it on the
    /// source's queue.
    func resume() {
        let wasSuspended = pump.control.withLock { control in
            defer { control.isSuspended = false }
            return control.isSuspended
        }
        if wasSuspended { pump.wakeUp() }
    }

    /// The thread's side: it owns the descriptors, and closes them when
    /// the source is cancelled.
    private final class EventPump: Sendable {
        struct Control {
            var isSuspended = false
            var isCancelled = false
            /// The descriptors are closed: their numbers may be another file's.
            var isClosed = false
        }

        let control = Mutex(Control())
        private let fileDescriptor: Int32
        private let wake: (read: Int32, write: Int32)
        private let names: Set<String>
        private let queue: DispatchQueue
        private let onChange: @Sendable (Events) -> Void

        init(
            fileDescriptor: Int32, wake: (read: Int32, write: Int32), names: Set<String>, queue: DispatchQueue,
            onChange: @escaping @Sendable (Events) -> Void)
        {
            self.fileDescriptor = fileDescriptor
            self.wake = wake
            self.names = names
            self.queue = queue
            self.onChange = onChange
        }

        func wakeUp() {
            control.withLock { control in
                guard !control.isClosed else { return }
                var byte: UInt8 = 1
                _ = write(wake.write, &byte, 1)
            }
        }

        /// Waits for events, or for a wake-up (a resume, the cancel), until cancelled.
        func run() {
            // Only this thread uses the buffer.
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
            defer {
                buffer.deallocate()
                control.withLock { control in
                    control.isClosed = true
                    close(fileDescriptor)
                    close(wake.read)
                    close(wake.write)
                }
            }
            while true {
                let control = self.control.withLock { $0 }
                guard !control.isCancelled else { return }
                // Suspended: the events wait in the kernel.
                var descriptors = [
                    pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: fileDescriptor, events: control.isSuspended ? 0 : Int16(POLLIN), revents: 0),
                ]
                guard poll(&descriptors, 2, -1) >= 0 || errno == EINTR else { return }
                if descriptors[0].revents != 0 {
                    _ = read(wake.read, buffer.baseAddress, buffer.count)
                }
                guard descriptors[1].revents != 0 else { continue }
                queue.sync {
                    // Cancelled or suspended on the queue meanwhile.
                    let control = self.control.withLock { $0 }
                    guard !control.isCancelled, !control.isSuspended else { return }
                    let events = FileChangeSource.readEvents(fileDescriptor, into: buffer, matching: names)
                    if !events.isEmpty {
                        onChange(events)
                    }
                }
            }
        }
    }

    /// Reads the pending events, and returns what they tell about the files
    /// of `names` and the directory.
    fileprivate static func readEvents(
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
