import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reports the writes to some files of a directory, their closing after a
/// write, and their removal, as Linux's inotify sees them: no polling, no
/// CPU while nothing changes.
///
/// The directory is watched rather than the files, so that a file created
/// later (SQLite creates the `-wal` file of a database at its first write,
/// and removes it when its last connection closes) is watched too.
///
/// For example:
///
/// ```swift
/// let source = try FileChangeSource(
///     directory: "/tmp", names: ["players.sqlite", "players.sqlite-wal"],
///     queue: DispatchQueue(label: "changes"),
///     onChange: { print("changed") })
/// ```
// @unchecked Sendable: `fileDescriptor` and the read source are set in
// `init` and never change; the read source's handlers run on its queue.
final class FileChangeSource: @unchecked Sendable {
    private let source: any DispatchSourceRead

    /// Starts watching.
    ///
    /// - parameter directory: The directory of the files.
    /// - parameter names: The names of the watched files, in `directory`.
    /// - parameter queue: The queue of `onChange`.
    /// - parameter onChange: Called on `queue` after some watched files
    ///   were written, closed after a write, or removed. Events in quick
    ///   succession may be reported once.
    /// - throws: `FileChangeSourceError` if the directory can not be watched.
    init(
        directory: String,
        names: Set<String>,
        queue: DispatchQueue,
        onChange: @escaping @Sendable () -> Void) throws
    {
        let fileDescriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fileDescriptor >= 0 else {
            throw FileChangeSourceError(path: directory, code: errno)
        }
        guard inotify_add_watch(fileDescriptor, directory, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_DELETE)) >= 0 else {
            let code = errno
            close(fileDescriptor)
            throw FileChangeSourceError(path: directory, code: code)
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
        // Only the event handler uses the buffer, one call at a time.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        source.setEventHandler {
            if Self.readEvents(fileDescriptor, into: buffer, matching: names) {
                onChange()
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
    }

    /// Reads the pending events, and returns whether one is about a file
    /// of `names`, or tells that the kernel dropped events because its
    /// queue overflowed: any file may then have changed.
    private static func readEvents(
        _ fileDescriptor: Int32,
        into buffer: UnsafeMutableRawBufferPointer,
        matching names: Set<String>) -> Bool
    {
        let headerSize = MemoryLayout<inotify_event>.size
        var matches = false
        while true {
            let count = read(fileDescriptor, buffer.baseAddress, buffer.count)
            guard count > 0 else { break }  // EAGAIN: no more events
            var offset = 0
            while !matches && offset + headerSize <= count {
                let event = buffer.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                let nameBytes = buffer[(offset + headerSize)..<(offset + headerSize + Int(event.len))]
                matches = event.mask & UInt32(IN_Q_OVERFLOW) != 0
                    || names.contains(String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self))
                offset += headerSize + Int(event.len)
            }
        }
        return matches
    }
}

/// The error of a `FileChangeSource` that can not watch its directory.
struct FileChangeSourceError: Error, CustomStringConvertible {
    /// The watched directory.
    var path: String
    /// The `errno` of the failed call.
    var code: Int32

    var description: String {
        "cannot watch \"\(path)\": \(String(cString: strerror(code)))"
    }
}
