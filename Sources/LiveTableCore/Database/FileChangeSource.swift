import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reports the writes to some files of a directory, and their removal, as Linux's inotify
/// sees them: no polling, no CPU while nothing changes.
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
    ///   were written. Writes in quick succession may be reported once.
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
        guard inotify_add_watch(fileDescriptor, directory, UInt32(IN_MODIFY | IN_DELETE)) >= 0 else {
            let code = errno
            close(fileDescriptor)
            throw FileChangeSourceError(path: directory, code: code)
        }
        source = DispatchSource.makeReadSource(fileDescriptor: fileDescriptor, queue: queue)
        source.setEventHandler {
            if Self.readEvents(fileDescriptor).contains(where: { name in name.map(names.contains) ?? true }) {
                onChange()
            }
        }
        source.setCancelHandler {
            close(fileDescriptor)
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

    /// Reads the pending events, and returns the names of the files they
    /// are about. The name is nil when the kernel dropped events because
    /// its queue overflowed: any file may then have changed.
    private static func readEvents(_ fileDescriptor: Int32) -> [String?] {
        let headerSize = MemoryLayout<inotify_event>.size
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var names: [String?] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { bytes in
                read(fileDescriptor, bytes.baseAddress, bytes.count)
            }
            guard count > 0 else { break }  // EAGAIN: no more events
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset + headerSize <= count {
                    let event = bytes.loadUnaligned(fromByteOffset: offset, as: inotify_event.self)
                    let nameBytes = bytes[(offset + headerSize)..<(offset + headerSize + Int(event.len))]
                    if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        names.append(nil)
                    } else {
                        names.append(String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self))
                    }
                    offset += headerSize + Int(event.len)
                }
            }
        }
        return names
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
