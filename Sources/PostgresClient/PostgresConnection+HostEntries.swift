import Foundation
#if canImport(Glibc)
import Glibc
#endif

// MARK: - Host entries

/// The hosts of libpq's options, as libpq reads them: `host`, `hostaddr`
/// and `port` split at commas (libpq takes no escape there), the values
/// at one place in the lists making one entry to try. There are as many
/// entries as `hostaddr` values when it is given, else as `host` values,
/// else one (the default); a single `port` serves every entry.
struct HostEntries {
    /// One host to try: empty values are libpq's defaults.
    struct Entry: Equatable {
        var host: String
        var address: String
        var port: String

        /// Whether this entry is the one `PQhost`, `PQport` and `PQhostaddr` report, and by how many values
        /// given, or nil. Empty values match as libpq fills them. `hostaddr` must match, since `PQhost` gives
        /// the name whenever one is set (`host=db,db hostaddr=10.0.0.1,10.0.0.2` are two entries).
        func match(host reported: String, port reportedPort: String, address reportedAddress: String,
                   defaultPort: String) -> Int? {
            // PQhost: the host's name as given, else its address.
            let name = host.isEmpty ? address : host
            let hostMatches = name.isEmpty ? Self.isDefaultHost(reported) : name == reported
            let portMatches = port.isEmpty
                ? reportedPort.isEmpty || reportedPort == defaultPort
                : port == reportedPort
            // No address reported (libpq had none to show yet): the name
            // and port decide, as they do for an entry without one.
            let checksAddress = !address.isEmpty && !reportedAddress.isEmpty
            let addressMatches = !checksAddress || Self.isSameAddress(address, reportedAddress)
            guard hostMatches, portMatches, addressMatches else { return nil }
            return (name.isEmpty ? 0 : 1) + (port.isEmpty ? 0 : 1) + (checksAddress ? 1 : 0)
        }

        /// Whether two IP addresses are the same, compared as numbers
        /// (`::1` and `0:0:0:0:0:0:0:1` are one), libpq printing the one
        /// it reports its own way; as text when either is not an address.
        static func isSameAddress(_ first: String, _ second: String) -> Bool {
            guard let left = numeric(first), let right = numeric(second) else { return first == second }
            return left == right
        }

        private static func numeric(_ text: String) -> [UInt8]? {
            var bytes = [UInt8](repeating: 0, count: 16)
            if inet_pton(AF_INET, text, &bytes) == 1 { return [4] + bytes.prefix(4) }
            if inet_pton(AF_INET6, text, &bytes) == 1 { return [6] + bytes }
            return nil
        }

        private static func isDefaultHost(_ host: String) -> Bool {
            host.hasPrefix("/") || host.hasPrefix("@") || host == "localhost"
        }
    }

    /// In libpq's order, before any shuffle (`load_balance_hosts`).
    let entries: [Entry]
    /// Which lists the options give, one value per entry: only those are
    /// rewritten (a single port serves every entry left).
    private let hasHosts: Bool
    private let hasAddresses: Bool
    private let hasPortPerEntry: Bool

    init(_ options: [(String, String)]) {
        func list(_ keyword: String) -> [String]? {
            guard let value = options.last(where: { $0.0 == keyword })?.1, !value.isEmpty else { return nil }
            return value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        }
        let hosts = list("host"), addresses = list("hostaddr"), ports = list("port")
        let count = addresses?.count ?? hosts?.count ?? 1
        func value(_ values: [String]?, at index: Int) -> String {
            guard let values else { return "" }
            if values.count == 1 { return values[0] }
            return index < values.count ? values[index] : ""
        }
        entries = (0..<count).map { index in
            Entry(
                host: hosts.map { index < $0.count ? $0[index] : "" } ?? "",
                address: addresses.map { index < $0.count ? $0[index] : "" } ?? "",
                port: value(ports, at: index))
        }
        hasHosts = hosts != nil
        hasAddresses = addresses != nil
        hasPortPerEntry = (ports?.count ?? 0) > 1
    }

    /// The place of the entry `PQhost`, `PQport` and `PQhostaddr` report, among those not `skipping`:
    /// the first that matches by the most values given (two that both match are the same server).
    func index(ofHost host: String, port: String, address: String = "", defaultPort: String,
               skipping: Set<Int>) -> Int? {
        let matches = entries.indices.filter { !skipping.contains($0) }.compactMap { index in
            entries[index].match(host: host, port: port, address: address, defaultPort: defaultPort)
                .map { (index, $0) }
        }
        let best = matches.map(\.1).max()
        return matches.first { $0.1 == best }?.0
    }

    func options(_ options: [(String, String)], without removed: Set<Int>) -> [(String, String)]? {
        let kept = entries.indices.filter { !removed.contains($0) }.map { entries[$0] }
        guard !kept.isEmpty else { return nil }
        var replaced: [String: String] = [:]
        if hasHosts { replaced["host"] = kept.map(\.host).joined(separator: ",") }
        if hasAddresses { replaced["hostaddr"] = kept.map(\.address).joined(separator: ",") }
        if hasPortPerEntry { replaced["port"] = kept.map(\.port).joined(separator: ",") }
        return options.map { keyword, value in (keyword, replaced[keyword] ?? value) }
    }
}
