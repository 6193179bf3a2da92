import Foundation
import XCTest
import LiveTableTestSupport

/// Every test class that runs `ViewerDataSourceContract` runs all of its
/// cases, each as `testCase` for the case `case`: a case added to the
/// contract and forgotten in one database's class fails here. XCTest on
/// Linux finds a class's test methods in its own source (inherited ones
/// are not reliably run), so each class lists them, and this check reads
/// the sources, as `FolderRuleTests` does.
final class ViewerDataSourceContractTests: XCTestCase {
    private static let tests = packageDirectory.appendingPathComponent("Tests/LiveTableCoreTests")
    private static let contractFile = "Viewer/DataSourceContract/ViewerDataSourceContract.swift"

    func testEveryDataSourceClassRunsEveryContractCase() throws {
        let contract = try String(contentsOf: Self.tests.appendingPathComponent(Self.contractFile), encoding: .utf8)
        let cases = Self.cases(inContract: contract)
        XCTAssertGreaterThanOrEqual(cases.count, 8, "the contract's cases are found")

        let classes = try Self.classFiles()
        XCTAssertEqual(
            Set(classes.keys),
            ["Viewer/SQLite/SQLiteDataSourceTests.swift", "Viewer/Postgres/PostgresDataSourceTests.swift"],
            "each database has its class")
        for (file, source) in classes {
            XCTAssertEqual(Self.problems(runningCases: cases, in: source), [], file)
        }
    }

    /// The check fails for a class that forgets a case, names a test
    /// after another case, or calls a case that is not in the contract.
    func testTheCheckFindsAForgottenOrMisnamedCase() {
        let contract = """
            struct ViewerDataSourceContract {
                func first() throws { }
                func second() throws {
                    try helper()
                }
                private func helper() throws { }
            }
            """
        let cases = Self.cases(inContract: contract)
        XCTAssertEqual(cases, ["first", "second"])
        let complete = """
                func testFirst() throws { try contract.first() }
                func testSecond() throws { try contract.second() }
            """
        XCTAssertEqual(Self.problems(runningCases: cases, in: complete), [])
        XCTAssertEqual(
            Self.problems(runningCases: cases, in: "    func testFirst() throws { try contract.first() }\n"),
            ["no test runs the case second()"])
        XCTAssertEqual(
            Self.problems(runningCases: cases, in: complete + "\n    func testThird() throws { try contract.second() }\n"),
            ["testThird runs second(): its name should be testSecond"])
        XCTAssertEqual(
            Self.problems(runningCases: cases, in: complete + "\n    func testThird() throws { try contract.third() }\n"),
            ["testThird runs third(), which is not a case of the contract"])
    }

    // MARK: - Reading the sources

    /// The contract's cases: its methods that take nothing and throw, but
    /// the private ones (helpers).
    private static func cases(inContract source: String) -> [String] {
        matches(of: #"(?m)^    func (\w+)\(\) throws \{"#, in: source).map { $0[0] }
    }

    /// The test files that make a `ViewerDataSourceContract`, by path
    /// under Tests/LiveTableCoreTests, but the contract's own folder.
    private static func classFiles() throws -> [String: String] {
        var files: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)
        while let url = enumerator?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(tests.standardizedFileURL.path.count + 1))
            guard !path.hasPrefix("Viewer/DataSourceContract/") else { continue }
            let source = try String(contentsOf: url, encoding: .utf8)
            if source.contains("ViewerDataSourceContract(testCase:") { files[path] = source }
        }
        return files
    }

    /// What is wrong with the class `source` as a runner of `cases`: a
    /// case that no test runs, a test named after another case, a call of
    /// no case.
    private static func problems(runningCases cases: [String], in source: String) -> [String] {
        let runs = matches(of: #"func (test\w+)\(\) throws \{ try contract\.(\w+)\(\) \}"#, in: source)
        var problems: [String] = []
        for run in runs {
            let (test, called) = (run[0], run[1])
            let expected = "test" + called.prefix(1).uppercased() + called.dropFirst()
            if !cases.contains(called) {
                problems.append("\(test) runs \(called)(), which is not a case of the contract")
            } else if test != expected {
                problems.append("\(test) runs \(called)(): its name should be \(expected)")
            }
        }
        let run = Set(runs.map { $0[1] })
        problems += cases.filter { !run.contains($0) }.map { "no test runs the case \($0)()" }
        return problems
    }

    /// The captured groups of each match of `pattern` in `text`.
    private static func matches(of pattern: String, in text: String) -> [[String]] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).map { match in
            (1..<match.numberOfRanges).compactMap { index in
                Range(match.range(at: index), in: text).map { String(text[$0]) }
            }
        }
    }
}
