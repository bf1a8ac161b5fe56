import Foundation
import ReelCore

/// A static MPEG-DASH manifest (ISO/IEC 23009-1, live profile, `SegmentTemplate` with a
/// `SegmentTimeline`) over segment sets written by ``SegmentFolderWriter``: one adaptation
/// set for the pictures (every rendition a representation) and one for the sound.
struct DASHManifest {
    struct Representation {
        var id: String
        /// The rendition's folder relative to the manifest, with a trailing slash, or empty.
        var path: String
        var codecs: String
        var kind: MediaType
        var bandwidth: Int
        var width: Int?
        var height: Int?
        var segments: [SegmentFolderWriter.Segment]
    }

    var duration: MediaTime
    var representations: [Representation]

    var text: String {
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" profiles=\"urn:mpeg:dash:profile:isoff-live:2011\" "
                + "type=\"static\" mediaPresentationDuration=\"\(Self.duration(duration))\" minBufferTime=\"PT2S\">",
            "  <Period id=\"0\" start=\"PT0S\">",
        ]
        let groups: [(String, [Representation])] = [
            ("video", representations.filter { $0.kind == .video }), ("audio", representations.filter { $0.kind == .audio }),
        ]
        for (index, (kind, members)) in groups.enumerated() where !members.isEmpty {
            lines.append(
                "    <AdaptationSet id=\"\(index)\" contentType=\"\(kind)\" mimeType=\"\(kind)/mp4\" "
                    + "segmentAlignment=\"true\" startWithSAP=\"1\">")
            for member in members {
                var attributes =
                    "id=\"\(Self.escaped(member.id))\" codecs=\"\(Self.escaped(member.codecs))\" bandwidth=\"\(member.bandwidth)\""
                if let width = member.width, let height = member.height {
                    attributes += " width=\"\(width)\" height=\"\(height)\""
                }
                lines.append("      <Representation \(attributes)>")
                let timescale = member.segments.first?.duration.timescale ?? 1
                lines.append(
                    "        <SegmentTemplate timescale=\"\(timescale)\" initialization=\"\(Self.escaped(member.path))init.mp4\" "
                        + "media=\"\(Self.escaped(member.path))segment-$Number%05d$.m4s\" startNumber=\"1\">")
                lines.append("          <SegmentTimeline>")
                for segment in member.segments {
                    let start = segment.start.convertScale(timescale).value
                    let length = segment.duration.convertScale(timescale).value
                    lines.append("            <S t=\"\(start)\" d=\"\(length)\"/>")
                }
                lines.append("          </SegmentTimeline>")
                lines.append("        </SegmentTemplate>")
                lines.append("      </Representation>")
            }
            lines.append("    </AdaptationSet>")
        }
        lines += ["  </Period>", "</MPD>"]
        return lines.joined(separator: "\n") + "\n"
    }

    /// An xs:duration (`PT12.345S`).
    static func duration(_ time: MediaTime) -> String {
        String(format: "PT%.3fS", max(0, time.seconds))
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
