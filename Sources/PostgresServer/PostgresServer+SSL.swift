import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension PostgresServer {
    /// The certificate of the authority that signed the server's own, for
    /// a client's `sslrootcert`, when the server was made with `ssl: true`;
    /// nil otherwise.
    ///
    /// For example:
    ///
    /// ```swift
    /// let server = try PostgresServer(ssl: true)
    /// let authority = try XCTUnwrap(server.certificateAuthority)
    /// let string = "host=localhost port=\(server.port) dbname=postgres user=viewer "
    ///     + "sslmode=verify-full sslrootcert=\(authority.path)"
    /// ```
    package var certificateAuthority: URL? {
        let file = Self.certificateDirectory(of: directory).appendingPathComponent("ca.crt")
        return FileManager.default.fileExists(atPath: file.path) ? file : nil
    }

    static func certificateDirectory(of directory: URL) -> URL {
        directory.appendingPathComponent("ssl", isDirectory: true)
    }

    /// Makes, with the `openssl` program, a certificate authority and a
    /// server certificate for `localhost` and 127.0.0.1 that it signed, in
    /// the `ssl` directory of the server's directory; returns the server's
    /// SSL settings.
    ///
    /// Made as the clusters' owner: the server refuses a key file that is
    /// not its user's (or root's) or that others may read. Elliptic-curve
    /// keys (P-256): made at once, where RSA keys take a while.
    static func makeCertificates(in directory: URL, programs: PostgresPrograms) throws -> [String: String] {
        let ssl = certificateDirectory(of: directory)
        do {
            try FileManager.default.createDirectory(at: ssl, withIntermediateDirectories: false)
        } catch {
            throw Failure("cannot create \(ssl.path): \(error)")
        }
        try programs.give(ssl.path)
        // A configuration of its own: the system's may add extensions that
        // the ones below would repeat.
        try programs.write("""
            [req]
            distinguished_name = name
            prompt = no
            [name]
            CN = LiveTable test server
            [authority]
            basicConstraints = critical, CA:TRUE
            keyUsage = critical, keyCertSign, cRLSign
            subjectKeyIdentifier = hash
            [server]
            basicConstraints = CA:FALSE
            keyUsage = critical, digitalSignature, keyEncipherment
            extendedKeyUsage = serverAuth
            subjectAltName = DNS:localhost, IP:127.0.0.1
            authorityKeyIdentifier = keyid

            """, to: ssl.appendingPathComponent("openssl.cnf"), mode: 0o644)
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509", "-config", "openssl.cnf", "-extensions", "authority"] + key
                + ["-days", "7", "-subj", "/CN=LiveTable test authority", "-keyout", "ca.key", "-out", "ca.crt"],
            ["req", "-new", "-config", "openssl.cnf"] + key
                + ["-subj", "/CN=localhost", "-keyout", "server.key", "-out", "server.csr"],
            ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-set_serial", "2",
             "-days", "7", "-extfile", "openssl.cnf", "-extensions", "server", "-out", "server.crt"],
        ]
        for arguments in steps {
            let output = try programs.run("openssl", arguments, asOwner: true, in: ssl)
            guard output.status == 0 else {
                throw Failure("openssl \(arguments[0]): \(oneLine(output.standardError))")
            }
        }
        for file in ["ca.key", "server.key"] {
            chmod(ssl.appendingPathComponent(file).path, 0o600)
        }
        // Any client of this machine may trust the authority.
        chmod(ssl.appendingPathComponent("ca.crt").path, 0o644)
        return [
            "ssl": "on",
            "ssl_cert_file": ssl.appendingPathComponent("server.crt").path,
            "ssl_key_file": ssl.appendingPathComponent("server.key").path,
        ]
    }
}
