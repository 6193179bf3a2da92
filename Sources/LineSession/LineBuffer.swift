import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The lines that a session's tool printed and no call has taken yet, each
/// with the time it was read: filled by the reading thread, taken by the
/// calls up to their marker.
// @unchecked Sendable: `lines` and `hasEnded` are only accessed with
// `condition` locked.
final class LineBuffer: @unchecked Sendable {
    /// What a call found in the tool's output.
    enum Reply {
        /// The lines before the marker, and when the marker was read, in
        /// `DispatchTime` nanoseconds.
        case printed([String], time: UInt64)
        /// The output ended (the tool exited) before the marker: its last
        /// lines, which say why.
        case ended(lastLines: [String])
        case timedOut
    }

    private let condition = NSCondition()
    private var lines: [(text: String, time: UInt64)] = []
    private var hasEnded = false

    /// Reads `reader` until its end, a line at a time.
    ///
    /// With read(2) rather than `FileHandle.availableData`, which traps on
    /// a read error.
    func read(from reader: FileHandle) {
        let descriptor = reader.fileDescriptor
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var pending = Data()
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            let now = DispatchTime.now().uptimeNanoseconds
            guard count > 0 else { break }
            pending.append(contentsOf: buffer[..<count])
            var read: [(String, UInt64)] = []
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                read.append((String(decoding: pending[..<newline], as: UTF8.self), now))
                pending.removeSubrange(...newline)
            }
            guard !read.isEmpty else { continue }
            condition.lock()
            lines += read
            condition.broadcast()
            condition.unlock()
        }
        condition.lock()
        // A last line without its newline: often the error that ended the tool.
        if !pending.isEmpty {
            lines.append((String(decoding: pending, as: UTF8.self), DispatchTime.now().uptimeNanoseconds))
        }
        hasEnded = true
        condition.broadcast()
        condition.unlock()
        withExtendedLifetime(reader) {}
    }

    /// Waits for the line `marker`, and takes the lines up to it.
    func wait(for marker: String, until deadline: Date) -> Reply {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let end = lines.firstIndex(where: { $0.text == marker }) {
                let printed = lines[..<end].map(\.text)
                let time = lines[end].time
                lines.removeSubrange(...end)
                return .printed(printed, time: time)
            }
            if hasEnded {
                return .ended(lastLines: lines.suffix(3).map(\.text))
            }
            guard condition.wait(until: deadline) else {
                return .timedOut
            }
        }
    }
}
