/// Where each part of the viewer's screen goes, from the terminal size alone.
///
/// ```
///  file — table · by column ↓          row 12 of 1,234 · live
///  id  name        score                                 (header)
///   1  Arthur        100                                 (rows)
///  Enter row  t tables  ? help  q quit                   (footer)
///  status                                 3 more columns →
/// ```
struct ViewerLayout: Equatable {
    static let minimumWidth = 20
    /// Title, header, one row, footer, status.
    static let minimumHeight = 5

    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }

    var isTooSmall: Bool {
        width < Self.minimumWidth || height < Self.minimumHeight
    }

    var headerY: Int { 1 }
    var listY: Int { 2 }
    var listRows: Int { isTooSmall ? 0 : height - 4 }
    var footerY: Int { height - 2 }
    var statusY: Int { height - 1 }
}
