import Foundation

/// The package's root directory, where README.md and Docs/ are, wherever
/// the test that reads them sits in the Tests folder.
public let packageDirectory = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
