/// Where each part of the main screen goes, computed from the terminal size
/// alone. `render` draws with it, and `update` reads the number of rows of
/// the players pane from it to size pages and windows.
struct HallOfFameLayout: Equatable {
    /// Below this width the layout does not fit: the screen only says so.
    static let minimumWidth = 30
    /// Below this height the layout does not fit: title, the stats panes, a
    /// players pane of one row, the footer and the status line.
    static let minimumHeight = 9
    /// From this width on, the stats panes stack at the right of the list.
    static let sideBySideWidth = 60
    static let statsColumnWidth = 20

    let isTooSmall: Bool
    let title: Rect
    let list: Rect
    let countPane: Rect
    let maxScorePane: Rect
    let footer: Rect
    let status: Rect

    init(width: Int, height: Int) {
        let width = max(0, width)
        let height = max(0, height)
        isTooSmall = width < HallOfFameLayout.minimumWidth || height < HallOfFameLayout.minimumHeight
        title = Rect(x: 0, y: 0, width: width, height: 1)
        footer = Rect(x: 0, y: height - 2, width: width, height: 1)
        status = Rect(x: 0, y: height - 1, width: width, height: 1)
        let bodyHeight = height - 3
        if width >= HallOfFameLayout.sideBySideWidth {
            let statsX = width - HallOfFameLayout.statsColumnWidth
            list = Rect(x: 0, y: 1, width: statsX, height: bodyHeight)
            countPane = Rect(x: statsX, y: 1, width: HallOfFameLayout.statsColumnWidth, height: 3)
            maxScorePane = Rect(x: statsX, y: 4, width: HallOfFameLayout.statsColumnWidth, height: 3)
        } else {
            let half = width / 2
            countPane = Rect(x: 0, y: 1, width: half, height: 3)
            maxScorePane = Rect(x: half, y: 1, width: width - half, height: 3)
            list = Rect(x: 0, y: 4, width: width, height: bodyHeight - 3)
        }
    }

    /// The number of player rows inside the players pane.
    var listRows: Int {
        isTooSmall ? 0 : max(0, list.height - 2)
    }
}
