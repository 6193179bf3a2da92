import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A descriptor that a thread asleep in poll(2) watches, so that another thread can wake it: the
/// interrupt of a connection attempt, and a poll's own stop.
// @unchecked Sendable: descriptors, read and written with system calls
// that are safe from any thread.
package final class WakeUpDescriptor: @unchecked Sendable {
    /// The end to poll, readable once signalled until cleared; -1 when no descriptor was left: poll(2)
    /// ignores it, and the sleeper wakes only by its own timeout.
    package let descriptor: Int32
    /// The end ``signal()`` writes to (internal: a test checks its flags).
    let writer: Int32

    package init() {
        var ends: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue)
        if socketpair(AF_UNIX, type, 0, &ends) != 0 {
            ends = [-1, -1]
        }
        descriptor = ends[0]
        writer = ends[1]
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writer >= 0 { close(writer) }
    }

    /// Wakes the sleeper: ``descriptor`` is readable until ``clear()``.
    package func signal() {
        guard writer >= 0 else { return }
        var byte: UInt8 = 1
        // Full (many signals unread), it needs no more: it is readable.
        _ = send(writer, &byte, 1, Int32(MSG_NOSIGNAL))
    }

    package func clear() {
        guard descriptor >= 0 else { return }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 16) { bytes in
            while read(descriptor, bytes.baseAddress, bytes.count) > 0 {}
        }
    }
}
