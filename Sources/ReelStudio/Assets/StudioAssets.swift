import Foundation

/// The page's files, compiled into the binary so that `reel studio` runs from
/// anywhere: the three pages, one style sheet, the scripts and the icon. No outside
/// frameworks; nothing is fetched from elsewhere.
///
/// They are real files in `Sources/ReelStudio/Resources/`, embedded at build time
/// (SwiftPM's `.embedInCode`, so no bundle is looked up at run time): `page.html` is
/// the shell (bar, navigation, connection pill, toast) around each page's body,
/// `camera.html`, `gallery.html` and `compose.html`. Values the pages share with Swift
/// are filled in here (`{{segmentLimit}}`) or sent in the state, never written twice.
enum StudioAssets {
    struct Asset: Sendable {
        let contentType: String
        let bytes: Data
    }

    /// The asset served at `path`, if there is one.
    static func asset(at path: String) -> Asset? { table[path] }

    static let table: [String: Asset] = {
        let html = "text/html; charset=utf-8", script = "text/javascript; charset=utf-8"
        func asset(_ type: String, _ bytes: [UInt8]) -> Asset { Asset(contentType: type, bytes: Data(bytes)) }
        func page(_ title: String, _ id: String, _ body: [UInt8]) -> Asset {
            Asset(contentType: html, bytes: Data(StudioAssets.page(title: title, id: id, body: body).utf8))
        }
        return [
            "/": page("Camera", "camera", PackageResources.camera_html),
            "/gallery": page("Gallery", "gallery", PackageResources.gallery_html),
            "/compose": page("Compose", "compose", PackageResources.compose_html),
            "/assets/studio.css": asset("text/css; charset=utf-8", PackageResources.studio_css),
            "/assets/studio.js": asset(script, PackageResources.studio_js),
            "/assets/camera.js": asset(script, PackageResources.camera_js),
            "/assets/gallery.js": asset(script, PackageResources.gallery_js),
            "/assets/compose.js": asset(script, PackageResources.compose_js),
            "/favicon.svg": asset("image/svg+xml", PackageResources.favicon_svg),
        ]
    }()

    /// The shell around `body`, with the page's title, its tab marked current and the
    /// shared values filled in.
    static func page(title: String, id: String, body: [UInt8]) -> String {
        let shell = String(decoding: PackageResources.page_html, as: UTF8.self)
        return shell
            .replacingOccurrences(of: "{{body}}", with: String(decoding: body, as: UTF8.self).trimmingCharacters(in: .newlines))
            .replacingOccurrences(of: "{{title}}", with: title)
            .replacingOccurrences(of: "{{page}}", with: id)
            .replacingOccurrences(of: "data-nav=\"\(id)\"", with: "data-nav=\"\(id)\" aria-current=\"page\"")
            .replacingOccurrences(of: "{{segmentLimit}}", with: String(format: "%g", ShortVideoDesk.limitSeconds))
    }
}
