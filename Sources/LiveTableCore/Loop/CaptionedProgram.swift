import OpenCombine

/// Any screen with a caption over its status line: the demo's captions,
/// on the Hall of Fame and on the viewer alike.
package struct CaptionedProgram<Base: AppProgram>: AppProgram {
    package let base: Base

    package init(_ base: Base) {
        self.base = base
    }

    package func start() -> [AppCommand<CaptionedMessage<Base.Message>, Base.Slot>] {
        base.start().map(Self.lift)
    }

    package func update(_ state: inout Captioned<Base.State>, _ message: CaptionedMessage<Base.Message>) -> [Base.Effect] {
        switch message {
        case let .caption(caption):
            state.caption = caption
            return []
        case let .base(message):
            return base.update(&state.base, message)
        }
    }

    package func render(_ state: Captioned<Base.State>) -> Screen {
        guard let caption = state.caption else { return base.render(state.base) }
        return base.render(state.base, caption: caption)
    }

    package func command(for effect: Base.Effect) -> AppCommand<CaptionedMessage<Base.Message>, Base.Slot> {
        Self.lift(base.command(for: effect))
    }

    private static func lift(
        _ command: AppCommand<Base.Message, Base.Slot>) -> AppCommand<CaptionedMessage<Base.Message>, Base.Slot>
    {
        switch command {
        case let .observe(slot, publisher):
            return .observe(slot: slot, publisher.map(CaptionedMessage.base).eraseToAnyPublisher())
        case let .perform(publisher):
            return .perform(publisher.map(CaptionedMessage.base).eraseToAnyPublisher())
        case let .signal(signal):
            return .signal(signal)
        case .suspend:
            return .suspend
        case .quit:
            return .quit
        }
    }
}

extension AppProgram {
    /// The screen of `render(_:)`, its bottom line covered with `caption`:
    /// the caption of a screen that has no place for one of its own.
    package func render(_ state: State, caption: String) -> Screen {
        var screen = render(state)
        if screen.width > 2, screen.height > 0 {
            let y = screen.height - 1
            screen.fill(x: 0, y: y, width: screen.width, height: 1)
            screen.put(
                TextWidth.truncated(caption, toWidth: screen.width - 2), x: 1, y: y,
                style: CellStyle(color: .status))
        }
        return screen
    }
}

/// The state of a `CaptionedProgram`: the base program's state, and the
/// caption.
package struct Captioned<Base> {
    package var base: Base
    package var caption: String?

    package init(_ base: Base, caption: String? = nil) {
        self.base = base
        self.caption = caption
    }
}

extension Captioned: Equatable where Base: Equatable { }
extension Captioned: Sendable where Base: Sendable { }

package enum CaptionedMessage<Base> {
    /// Shows this caption over the status line; nil removes it.
    case caption(String?)
    case base(Base)
}

extension CaptionedMessage: Equatable where Base: Equatable { }
extension CaptionedMessage: Sendable where Base: Sendable { }

extension CaptionedMessage: TerminalMessage where Base: TerminalMessage {
    package static func key(_ key: Key) -> CaptionedMessage {
        .base(.key(key))
    }

    package static func resize(width: Int, height: Int) -> CaptionedMessage {
        .base(.resize(width: width, height: height))
    }
}
