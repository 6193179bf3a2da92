import Foundation
import OpenCombine

// MARK: - Alerts

extension ViewerProgram {
    /// The check and the reads of the matching rows share the `.alert` slot:
    /// a new condition replaces the old one's reads.
    func alertCommand(_ effect: ViewerAlertEffect) -> AppCommand<ViewerMessage, ViewerSlot> {
        let dataSource = self.dataSource
        switch effect {
        case let .check(viewed, expression):
            return .observe(slot: .alert, read({ ticket in
                try dataSource.filter(viewed, by: expression, ticket: ticket).viewed
            }, { ViewerMessage.alert(.checked($0)) }, { error, _ in ViewerMessage.alert(.checkFailed(error)) }))
        case let .observe(viewed):
            return .observe(slot: .alert, dataSource.windows(of: viewed, ViewerAlert.request(for: viewed))
                .map { read -> ViewerMessage in
                    switch read {
                    case let .window(window): return .alert(.window(window))
                    case let .transientFailure(error): return .alert(.failed(dataSource.describe(error), .transient))
                    }
                }
                .catch { error in
                    Just(ViewerMessage.alert(.failed(dataSource.describe(error), dataSource.failureKind(of: error))))
                }
                .eraseToAnyPublisher())
        case .stop:
            return .observe(slot: .alert, Empty<ViewerMessage, Never>().eraseToAnyPublisher())
        case .bell:
            return .signal(.bell)
        }
    }
}
