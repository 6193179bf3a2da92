import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 to a local port, whose forwarding can be
/// frozen: data read is held, nothing is closed, until `thaw()`. It
/// stands for a path to the server that stops answering while the kernel
/// keeps the connection (a proxy or NAT box that stopped forwarding).
///
/// For example:
///
/// ```swift
/// let proxy = try FreezableProxy(to: server.port)
/// defer { proxy.stop() }
/// proxy.freeze()   // connections through proxy.port hang from now on
/// proxy.thaw()     // what was held goes through
/// ```
// @unchecked Sendable: every field is guarded by `condition`, but the
// listening socket and the port, set once.
public final class FreezableProxy: @unchecked Sendable {
    /// The port on 127.0.0.1 that forwards to the target.
    public let port: Int
    private let listener: Int32
    private let target: Int
    private let condition = NSCondition()
    private var isFrozen = false
    private var isStopped = false
    private var sockets: [Int32] = []
    private var threads = 0
    private var accepted = 0

    /// Listens on a free port of 127.0.0.1, and forwards each connection
    /// to `target` on 127.0.0.1.
    public init(to target: Int) throws {
        self.target = target
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard listener >= 0, bound == 0, listen(listener, 16) == 0 else {
            if listener >= 0 { close(listener) }
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        guard address.sin_port != 0 else {
            close(listener)
            throw POSIXError(.EADDRNOTAVAIL)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        spawn { [self] in acceptLoop() }
    }

    /// The connections accepted so far, frozen or not (a frozen proxy
    /// still accepts): a client's attempt has reached the proxy once it
    /// grew.
    public var acceptedConnections: Int {
        condition.withLock { accepted }
    }

    /// Stops forwarding; the connections stay open.
    public func freeze() {
        condition.withLock { isFrozen = true }
    }

    /// Forwards again, the data held first.
    public func thaw() {
        condition.withLock {
            isFrozen = false
            condition.broadcast()
        }
    }

    /// Closes everything, once its threads are done with the sockets.
    public func stop() {
        condition.withLock {
            isStopped = true
            isFrozen = false
            condition.broadcast()
            shutdown(listener, Int32(SHUT_RDWR))
            for socket in sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
        let deadline = Date(timeIntervalSinceNow: 5)
        condition.withLock {
            while threads > 0, condition.wait(until: deadline) {}
            for socket in sockets { close(socket) }
            sockets = []
        }
        close(listener)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func spawn(_ body: @escaping @Sendable () -> Void) {
        condition.withLock { threads += 1 }
        Thread { [self] in
            body()
            condition.withLock {
                threads -= 1
                condition.broadcast()
            }
        }.start()
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.loopback(port: target)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            let stopped = condition.withLock { () -> Bool in
                sockets += [client, upstream]
                accepted += 1
                return isStopped
            }
            guard !stopped, connected == 0 else {
                shutdown(client, Int32(SHUT_RDWR))
                continue
            }
            spawn { [self] in pump(from: client, to: upstream) }
            spawn { [self] in pump(from: upstream, to: client) }
        }
    }

    /// Copies `from` to `to`, holding what it read while frozen; at the
    /// end of either side, ends both.
    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = read(source, &buffer, buffer.count)
            guard count > 0 else { break }
            condition.withLock {
                while isFrozen { condition.wait() }
            }
            var written = 0
            while written < count {
                let n = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + written, count - written, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { break }
                written += n
            }
            guard written == count else { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }
}
