extension CompositionSpec {
    /// The spec with every `boomerang` clip written out as two: its range forwards (without
    /// its transition), then the same range backwards (`reverse`, with the clip's transition
    /// into the next). A freeze stays on the first half. ``build(relativeTo:)`` builds from
    /// this form, and `reel compose` reverses the second half as it reverses any clip.
    /// - Returns: The spec itself when no clip is a boomerang.
    public func expandingBoomerangs() -> CompositionSpec {
        guard clips.contains(where: { $0.boomerang == true }) else { return self }
        var expanded = self
        expanded.clips = clips.flatMap { clip -> [Clip] in
            guard clip.boomerang == true else { return [clip] }
            var forward = clip, backward = clip
            forward.boomerang = nil
            forward.transition = nil
            backward.boomerang = nil
            backward.freeze = nil
            backward.reverse = !(clip.reverse ?? false)
            return [forward, backward]
        }
        return expanded
    }
}
