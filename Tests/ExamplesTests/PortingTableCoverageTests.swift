import Foundation
import ReelTestSupport
import Testing

/// Issue 15: "every row of the porting table was checked against a call in a test or an
/// example". Each row of docs/porting-from-avfoundation.md names Reel's API in its second
/// column (or says "the same", naming it by AVFoundation's name); every name there must be
/// called somewhere in Tests/ or Examples/. A new row whose API nothing calls fails here.
/// This checks that a call exists, not what it asserts: the `PortingTable…Tests` suites
/// hold the checks for the rows nothing else called.
@Suite struct PortingTableCoverageTests {
    /// Names in the table that are not Reel's own spelling of a call: AVFoundation's name in a
    /// row whose Reel name differs, or prose in code spans.
    static let notReelNames: Set<String> = [
        "copyCGImage",  // AVFoundation's name; Reel's is image(at:), in the same row
        "setSampleBufferDelegate",  // Reel's is setSampleBufferHandler(queue:didDrop:)
        "customVideoCompositorClass",  // Reel's is customVideoCompositor
        "CGRectZero",  // the crop rectangle Rect.zero
        "Fade", "Instant", "Mono", "Noir", "Process", "Tonal", "Transfer",  // PhotoEffect… suffixes
        // Posted only when the session's videoFilter fails on a frame, which no built-in
        // filter does: nothing a test can do makes it (the row says so).
        "runtimeErrorNotification",
    ]

    /// The identifiers a code span names: `A.b(c:)` gives b, `.m4v` gives m4v, `a * n` gives a.
    static func names(in cell: String) -> [String] {
        var names: [String] = []
        let spans = cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
        for (_, span) in spans {
            for word in span.split(whereSeparator: { " ,;".contains($0) }) {
                let callee = word.split(separator: "(", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                guard let last = callee.split(separator: ".").last else { continue }
                let name = String(last)
                guard let first = name.unicodeScalars.first, CharacterSet.letters.contains(first) || first == "_",
                      name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) || $0 == "_" }) else { continue }
                names.append(name)
            }
        }
        return names
    }

    /// AVFoundation's prefixes, which a name Reel keeps "the same" drops.
    static func isPrefixed(_ name: String) -> Bool {
        ["AV", "CM", "CV", "CG", "CI", "UI", "kCV", "kCM", "PH"].contains { name.hasPrefix($0) }
    }

    @Test func everyRowsAPIIsCalledInATestOrAnExample() throws {
        let table = try String(contentsOf: Paths.packageRoot.appendingPathComponent("docs/porting-from-avfoundation.md"), encoding: .utf8)
        var source = ""
        for folder in ["Tests", "Examples"] {
            let root = Paths.packageRoot.appendingPathComponent(folder)
            let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = files?.nextObject() as? URL {
                guard url.pathExtension == "swift", url.lastPathComponent != "PortingTableCoverageTests.swift" else { continue }
                source += try String(contentsOf: url, encoding: .utf8) + "\n"
            }
        }
        let words = Set(source.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
        var rows = 0, checked = 0
        for line in table.split(separator: "\n") where line.hasPrefix("| ") {
            let cells = line.dropFirst(2).components(separatedBy: " | ")
            guard cells.count >= 3, !cells[0].hasPrefix("AVFoundation"), !cells[0].hasPrefix("iOS"),
                  !cells[0].hasPrefix("Core Image") else { continue }
            rows += 1
            let reel = cells[1]
            if ["not yet", "no counterpart", "outside Reel", "no view layer", "the studio"].contains(where: reel.hasPrefix) { continue }
            var wanted = Self.names(in: reel)
            if reel.contains("the same") { wanted += Self.names(in: cells[0]).filter { !Self.isPrefixed($0) } }
            let missing = Set(wanted).subtracting(Self.notReelNames).filter { !words.contains($0) }
            #expect(missing.isEmpty, "nothing in Tests/ or Examples/ calls \(missing.sorted()) (row \(cells[0].prefix(60)))")
            checked += 1
        }
        #expect(rows > 90 && checked > 80, "\(rows) rows, \(checked) checked: the table's layout changed")
    }
}
