import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A file written whole or not at all: its bytes go to a hidden file beside
/// it, which takes its name only once complete. A save that fails or is
/// stopped removes that file, and leaves the old file, if any, as it was.
package struct SheetFile: Sendable {
    package let path: String

    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// Asked before it is replaced.
        case exists(path: String)
        case cannotWrite(path: String, reason: String)

        package var description: String {
            switch self {
            case let .exists(path): return "\(path.escapingControlCharacters) exists"
            case let .cannotWrite(path, reason): return "cannot save \(path.escapingControlCharacters): \(reason)"
            }
        }
    }

    /// `~/` is the home directory, as a shell reads it.
    package init(path: String) {
        if path.hasPrefix("~/"), let home = ProcessInfo.processInfo.environment["HOME"] {
            self.path = home + path.dropFirst(1)
        } else {
            self.path = path
        }
    }

    package var exists: Bool {
        access(path, F_OK) == 0
    }

    /// True when `other` names this same file (a link, `..`, another
    /// spelling of its path).
    package func isSameFile(as other: String) -> Bool {
        var mine = stat()
        var theirs = stat()
        guard stat(path, &mine) == 0, stat(other, &theirs) == 0 else { return false }
        return mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino
    }

    /// Calls `body` with a function that appends bytes to the file, then
    /// gives the file its name: in place of the old one when `overwrite`,
    /// else only if none took it meanwhile.
    package func write<T>(overwrite: Bool, _ body: ((UnsafeRawBufferPointer) throws -> Void) throws -> T) throws -> T {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".\(getpid()).\(UInt32.random(in: 0...UInt32.max)).part"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { throw failure(errno) }
        Self.unfinished.withLock { _ = $0.insert(temporary) }
        var isNamed = false
        defer {
            if !isNamed { unlink(temporary) }
            Self.unfinished.withLock { _ = $0.remove(temporary) }
        }
        let value: T
        do {
            defer { close(descriptor) }
            value = try body { bytes in try Self.write(bytes, to: descriptor, path: path) }
            guard fsync(descriptor) == 0 else { throw failure(errno) }
        }
        if overwrite {
            guard rename(temporary, path) == 0 else { throw failure(errno) }
        } else if link(temporary, path) == 0 {
            // A hard link names the file only if the name is free.
            unlink(temporary)
        } else if errno == EEXIST {
            throw Failure.exists(path: path)
        } else {
            // A file system without hard links (FAT, some network ones).
            guard !exists else { throw Failure.exists(path: path) }
            guard rename(temporary, path) == 0 else { throw failure(errno) }
        }
        isNamed = true
        return value
    }

    /// The files being written, which an exit while they are removes.
    private static let unfinished = Mutex<Set<String>>([])

    /// At exit: a save that runs leaves no part of a file.
    package static func removeUnfinishedFiles() {
        for path in unfinished.withLock({ $0 }) {
            unlink(path)
        }
    }

    private func failure(_ code: Int32) -> Failure {
        .cannotWrite(path: path, reason: String(cString: strerror(code)))
    }

    private static func write(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String) throws {
        var offset = 0
        while offset < bytes.count, let base = bytes.baseAddress {
            let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure.cannotWrite(path: path, reason: String(cString: strerror(errno)))
            }
            offset += written
        }
    }
}
