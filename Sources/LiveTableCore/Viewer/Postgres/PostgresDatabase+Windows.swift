import Foundation
import OpenCombine
import OpenCombineDispatch

// MARK: - Live windows (placeholder)

// pg-live's branch replaces this file: the windows after each commit (the
// WAL position polled), LISTEN, reconnection with backoff, the liveness.
// Until then, one window at subscription, so that this branch builds.

extension PostgresDatabase {
    /// The window `request` of `viewed`, read once off the main thread and
    /// delivered on the main queue (pg-live's version reads it again after
    /// each commit).
    public func windows(of viewed: ViewedSource, _ request: RowWindowRequest) -> AnyPublisher<ViewerWindowRead, any Error> {
        Deferred { () -> AnyPublisher<ViewerWindowRead, any Error> in
            let ticket = ReadTicket()
            return Just(())
                .receive(on: DispatchQueue.global().ocombine)
                .tryMap { ViewerWindowRead.window(try self.fetchWindow(viewed, request, ticket: ticket)) }
                .receive(on: DispatchQueue.main.ocombine)
            .handleEvents(receiveCancel: { ticket.abandon() })
            .eraseToAnyPublisher()
        }.eraseToAnyPublisher()
    }

    /// Nothing yet (pg-live's version says how commits are seen).
    public func liveness() -> AnyPublisher<ViewerLiveness, Never> {
        Empty().eraseToAnyPublisher()
    }
}
