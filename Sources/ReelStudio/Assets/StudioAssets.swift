import Foundation

/// The page's files, compiled into the binary so that `reel studio` runs from
/// anywhere: the three pages, one style sheet, the scripts and the icon. No outside
/// frameworks; nothing is fetched from elsewhere.
enum StudioAssets {
    struct Asset: Sendable {
        let contentType: String
        let bytes: Data
    }

    /// The asset served at `path`, if there is one.
    static func asset(at path: String) -> Asset? { table[path] }

    static let table: [String: Asset] = {
        let html = "text/html; charset=utf-8", script = "text/javascript; charset=utf-8"
        func asset(_ type: String, _ text: String) -> Asset { Asset(contentType: type, bytes: Data(text.utf8)) }
        return [
            "/": asset(html, page(title: "Camera", id: "camera", body: cameraBody)),
            "/gallery": asset(html, page(title: "Gallery", id: "gallery", body: galleryBody)),
            "/compose": asset(html, page(title: "Compose", id: "compose", body: composeBody)),
            "/assets/studio.css": asset("text/css; charset=utf-8", style),
            "/assets/studio.js": asset(script, commonScript),
            "/assets/camera.js": asset(script, cameraScript),
            "/assets/gallery.js": asset(script, galleryScript),
            "/assets/compose.js": asset(script, composeScript),
            "/favicon.svg": asset("image/svg+xml", icon),
        ]
    }()
}
