import ArgumentParser
import Dispatch
import Foundation
import LiveTableCore
import OpenCombine

// MARK: - Alerts and waiting

extension ViewCommand {
    func validateWaiting() throws {
        if (alert != nil || until != nil) && table == nil && query == nil {
            throw ValidationError("\(alert != nil ? "--alert" : "--until") needs a table or --query.")
        }
        if alert != nil && until != nil {
            throw ValidationError("--alert is for the live view, --until waits without one: give one of them.")
        }
        if format != nil && until == nil && alert != nil {
            throw ValidationError("--alert is for the live view: --format prints the rows and exits.")
        }
        if let timeout, until == nil || !(timeout > 0) {
            throw ValidationError(until == nil ? "--timeout needs --until." : "--timeout takes a number of seconds above 0.")
        }
    }

    /// `--alert`'s condition, checked as a filter is (read-only), before
    /// the screen is taken: a bad one is one line and status 64.
    func checkAlert(_ dataSource: any ViewerDataSource, _ viewed: ViewedSource) throws -> ViewerAlert? {
        guard let alert else { return nil }
        return ViewerAlert(expression: alert, viewed: try check(alert, "--alert", dataSource, viewed))
    }

    private func check(
        _ expression: String, _ option: String, _ dataSource: any ViewerDataSource, _ viewed: ViewedSource
    ) throws -> ViewedSource {
        do {
            return try dataSource.filter(viewed, by: expression, ticket: ReadTicket()).viewed
        } catch {
            let text = dataSource.describe(error).split(whereSeparator: \.isNewline).joined(separator: " ")
            throw CommandFailure("\(option): \(text)", status: 64)
        }
    }

    /// `--until`: waits for a row of the sheet to match, through the data
    /// source's live windows (its commit watch), then prints it as
    /// `--format` prints rows and exits 0; exits 1 after `--timeout`.
    func waitUntil(_ expression: String, _ dataSource: any ViewerDataSource, _ viewed: ViewedSource) throws -> Never {
        let filtered = try check(expression, "--until", dataSource, viewed)
        let format = self.format ?? .csv
        let cancellable = ViewerAlert.firstMatch(of: filtered, in: dataSource).sink(
            receiveCompletion: { completion in
                guard case let .failure(error) = completion else { return }
                Self.fail(dataSource.describe(error), status: 1)
            },
            receiveValue: { window in
                // The windows cut long values (PostgreSQL): the row whole.
                let position = window.window.positions[0]
                let values = (try? dataSource.wholeRow(of: filtered, at: position, ticket: ReadTicket()))
                    ?? window.window.rows[0]
                var encoder = RowEncoder(format: format, columnNames: filtered.source.columnNames)
                let text = encoder.header() + encoder.record(values) + encoder.footer()
                FileHandle.standardOutput.write(Data(text.utf8))
                Foundation.exit(0)
            })
        if let timeout {
            DispatchQueue.main.asyncAfter(deadline: .now() + timeout) {
                Self.fail("no row matched --until within \(timeout.formatted()) s", status: 1, isError: false)
            }
        }
        withExtendedLifetime(cancellable) {
            dispatchMain()
        }
    }

    private static func fail(_ text: String, status: Int32, isError: Bool = true) -> Never {
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        FileHandle.standardError.write(Data("livetable: \(isError ? "error: " : "")\(line)\n".utf8))
        Foundation.exit(status)
    }
}
