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
    ],
    // Each target declares every module it imports, even one that another
    // dependency already brings in.
    targets: [
        // ncurses, for the executable only.
        .systemLibrary(
            name: "CNcurses",
            pkgConfig: "ncursesw",
            providers: [.apt(["libncurses-dev"])]),

        // The reactive layer: GRDB + OpenCombine, no terminal, no app.
        .target(
            name: "ReactiveGRDB",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]),

        // The app core: database, state, update, render. No ncurses.
        .target(
            name: "LiveTableCore",
            dependencies: [
                "ReactiveGRDB",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, the system library that GRDB itself links
                // (no new package), for what GRDB does not wrap: the
                // progress handler that stops an abandoned read.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]),

        // The `sqlite3` command as another process that writes: for the
        // benchmarks and the tests of other processes' commits.
        .target(name: "SQLiteCommandLine"),

        // The benchmark harness of `livetable bench`: the app loop measured
        // in child processes, /proc figures, the report. Not in the app core.
        .target(
            name: "LiveTableBenchmark",
            dependencies: [
                "LiveTableCore",
                "ReactiveGRDB",
                "SQLiteCommandLine",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),

        // The terminal app: ncurses runtime, input, signals, command line.
        .executableTarget(
            name: "livetable",
            dependencies: [
                "LiveTableCore",
                "ReactiveGRDB",
                "LiveTableBenchmark",
                "CNcurses",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
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
        .testTarget(
            name: "LiveTableCoreTests",
            dependencies: [
                "LiveTableCore",
                // The viewer's benchmark is tested on the foreign files of
                // these tests.
                "LiveTableBenchmark",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "LiveTableBenchmarkTests",
            dependencies: [
                "LiveTableBenchmark",
                "LiveTableCore",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]),
        .testTarget(
            name: "LiveTableEndToEndTests",
            dependencies: ["livetable"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
