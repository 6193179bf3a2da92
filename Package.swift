// swift-tools-version: 6.1

import PackageDescription

let package = Package(
    name: "LiveTable",
    products: [
        .library(name: "ReactiveGRDB", targets: ["ReactiveGRDB"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The reactive layer: GRDB + OpenCombine, no terminal, no app.
        .target(
            name: "ReactiveGRDB",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ]),
        .testTarget(
            name: "ReactiveGRDBTests",
            dependencies: ["ReactiveGRDB"],
            swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)
