// swift-tools-version: 6.1

import PackageDescription

let package = Package(
    name: "LiveTable",
    products: [
        .library(name: "ReactiveGRDB", targets: ["ReactiveGRDB"]),
        .executable(name: "livetable", targets: ["livetable"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The config file (config.toml): toml++ under a Swift API, which
        // reports the line of a syntax error. Its test and docc
        // dependencies are not resolved by packages that use it.
        .package(url: "https://github.com/LebJe/TOMLKit", from: "0.6.0"),
    ],
    // Each target declares every module it imports, even one that another
    // dependency already brings in.
    targets: [
        // ncurses, for the executable only. Its module map links ncursesw
        // and tinfo, and its shim asks for the wide-character API: no
        // pkg-config, whose -D_DEFAULT_SOURCE and -D_XOPEN_SOURCE=600 SwiftPM
        // drops with a "prohibited flag(s)" warning in every build of a
        // package that depends on this one.
        .systemLibrary(
            name: "CNcurses",
            providers: [.apt(["libncurses-dev"])]),

        // SQLite's C API, the system library GRDB links, for what GRDB does
        // not wrap: the viewer's guards against the SQL a user types (an
        // authorizer, sqlite3_db_config), the progress handler that stops an
        // abandoned read, and the export's reads of values in place.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),

        // libpq, PostgreSQL's own client library, for the viewer of
        // `postgres://` URLs (issue 19). It is the reference implementation
        // of every connection convention users already have: URL and
        // key/value strings, the PG* environment variables, ~/.pgpass,
        // service files, sslmode, several hosts with target_session_attrs.
        // It returns values as text, what a viewer shows, and works
        // synchronously on a dispatch queue, as GRDB does with SQLite.
        // (postgres-nio was considered: it parses no URL, pgpass or service
        // file, and returns binary values.)
        //
        // Not linked: loaded with dlopen when a PostgreSQL source opens.
        // Linked, libpq and the ~22 libraries it loads (OpenSSL, Kerberos,
        // LDAP…) cost every process 5.5 MB of peak memory, the Hall of
        // Fame's and `livetable --help`'s too. So this is a C target, not a
        // system library: its header includes libpq-dev's <libpq-fe.h> for
        // the types, and it defines each libpq function the client calls as
        // a trampoline to the loaded libpq.so.5 (Debian's libpq5). No
        // pkg-config: its -lpq would link libpq again; the header is found
        // as <postgresql/libpq-fe.h>.
        .target(name: "CLibPQ"),

        // Linux's statfs(2), which Swift's Glibc module lacks: the file
        // system type of a database file, for ReactiveGRDB.
        .systemLibrary(name: "CFileSystem"),

        // The reactive layer: GRDB + OpenCombine, no terminal, no app.
        .target(
            name: "ReactiveGRDB",
            dependencies: [
                "CFileSystem",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]),

        // A thin Swift wrapper over libpq: connect, statements with text
        // parameters and text values, rows streamed in constant memory,
        // cancel, notifications, errors that never hold a password. No GRDB,
        // no app.
        .target(name: "PostgresClient", dependencies: ["CLibPQ"]),

        // The app core: database, state, update, render. No ncurses.
        .target(
            name: "LiveTableCore",
            dependencies: [
                "ReactiveGRDB",
                "CSQLite",
                "PostgresClient",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]),

        // A command-line tool (psql, sqlite3) as a long-lived process fed
        // statements through a pipe, each call ended by a marker the tool
        // prints: the one mechanism of the two targets below.
        .target(name: "LineSession"),

        // The `sqlite3` command as another process that writes, and a FUSE
        // mount as another machine: for the benchmarks and the tests of
        // other processes' commits.
        .target(name: "SQLiteCommandLine", dependencies: ["LineSession"]),

        // A throwaway PostgreSQL cluster (initdb, pg_ctl, psql and
        // pg_basebackup processes, no libpq): the server of the tests and
        // the benchmark, its roles, a writing session, a hot standby.
        .target(name: "PostgresServer", dependencies: ["LineSession"]),

        // The benchmark harness of `livetable bench`: the app loop measured
        // in child processes, /proc figures, the report. Not in the app core.
        .target(
            name: "LiveTableBenchmark",
            dependencies: [
                "LiveTableCore",
                "ReactiveGRDB",
                "SQLiteCommandLine",
                "PostgresServer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]),

        // The terminal app: ncurses runtime, input, signals, command line.
        .executableTarget(
            name: "livetable",
            dependencies: [
                "LiveTableCore",
                "ReactiveGRDB",
                "LiveTableBenchmark",
                "PostgresClient",
                "CNcurses",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]),

        .testTarget(
            name: "ReactiveGRDBTests",
            dependencies: [
                "ReactiveGRDB",
                "SQLiteCommandLine",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        // The Swift code blocks of Docs/ReactiveGRDB.md and of the README's
        // ReactiveGRDB section, extracted by scripts/doc-examples.py and
        // compiled in the language mode of the library's users (Swift 6).
        // Examples declare values they never use: their warnings are noise,
        // their errors fail the build.
        .testTarget(
            name: "DocExamplesTests",
            dependencies: [
                "ReactiveGRDB",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ],
            swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        // The fixtures that several test targets share, as
        // swift-argument-parser ships ArgumentParserTestHelpers: files made
        // by the sqlite3 CLI and their checks, a temporary directory per
        // test, a wait on a condition, a TCP proxy that can freeze.
        .target(
            name: "LiveTableTestSupport",
            path: "Tests/LiveTableTestSupport",
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "LiveTableCoreTests",
            dependencies: [
                "LiveTableCore",
                "LiveTableTestSupport",
                // The PostgreSQL viewer's tests run against a real server.
                "PostgresServer",
                "PostgresClient",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "LiveTableBenchmarkTests",
            dependencies: [
                "LiveTableBenchmark",
                "LiveTableCore",
                "LiveTableTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "LineSessionTests",
            dependencies: ["LineSession", "LiveTableTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "PostgresServerTests",
            dependencies: ["PostgresServer", "LiveTableTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "PostgresClientTests",
            dependencies: ["PostgresClient", "PostgresServer", "LiveTableTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "LiveTableEndToEndTests",
            dependencies: ["livetable", "SQLiteCommandLine", "PostgresServer"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
