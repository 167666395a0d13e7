extension WebAssets {
  /// The style sheet: readable at a phone's width, a dark scheme after the browser's preference
  /// (`prefers-color-scheme`), system fonts only.
  static let css = #"""
    :root { color-scheme: light dark; --bg: #fdfdfb; --fg: #1d1d1b; --muted: #66645e; --line: #e2e0da;
      --accent: #1f5fa8; --unread: #1d1d1b; --mark: #fff1a8; --error: #a3261b; --current: #eef3fa; }
    @media (prefers-color-scheme: dark) {
      :root { --bg: #16171a; --fg: #e6e4de; --muted: #9a988f; --line: #2e3035; --accent: #7fb2f0;
        --unread: #ffffff; --mark: #5c4d00; --error: #ff8a7a; --current: #222a36; }
    }
    * { box-sizing: border-box; }
    html { -webkit-text-size-adjust: 100%; }
    body { margin: 0; background: var(--bg); color: var(--fg);
      font: 17px/1.55 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; }
    a { color: var(--accent); }
    main { max-width: 46rem; margin: 0 auto; padding: 0.5rem 1rem 2rem; }
    .bar { position: sticky; top: 0; z-index: 1; display: flex; flex-wrap: wrap; gap: 0.4rem 1rem;
      align-items: center; padding: 0.5rem 1rem; background: var(--bg); border-bottom: 1px solid var(--line); }
    .bar .home { font-weight: 700; text-decoration: none; color: var(--fg); }
    .bar nav a { margin-right: 0.6rem; }
    .bar .search { flex: 1 1 12rem; }
    .bar input[type=search] { width: 100%; padding: 0.35rem 0.5rem; font: inherit; color: inherit;
      background: transparent; border: 1px solid var(--line); border-radius: 4px; }
    h1 { font-size: 1.5rem; line-height: 1.25; margin: 1rem 0 0.5rem; overflow-wrap: anywhere; }
    h2 { font-size: 1.1rem; margin: 1.5rem 0 0.5rem; }
    ul.totals, ul.folders, ul.sources, ol.entries { list-style: none; margin: 0; padding: 0; }
    ul.totals li, ul.folders li { display: inline-block; margin-right: 1.2rem; }
    ul.folders li { display: block; }
    ul.folders .depth-2 { padding-left: 1rem; } ul.folders .depth-3 { padding-left: 2rem; }
    ul.folders .depth-4 { padding-left: 3rem; }
    .count { color: var(--muted); font-variant-numeric: tabular-nums; }
    ul.sources li { padding: 0.5rem 0; border-bottom: 1px solid var(--line); }
    .folder { color: var(--muted); font-size: 0.85rem; }
    .health { font-size: 0.85rem; color: var(--muted); }
    .error { color: var(--error); overflow-wrap: anywhere; }
    ol.entries li.entry { padding: 0.6rem 0.5rem; border-bottom: 1px solid var(--line); border-radius: 4px; }
    ol.entries li.entry.current { background: var(--current); outline: 2px solid var(--accent); }
    .entry .title { display: block; color: var(--muted); text-decoration: none; overflow-wrap: anywhere; }
    .entry.unread .title { color: var(--unread); font-weight: 650; }
    .entry.starred .title::before { content: "★ "; color: #d19a00; }
    .meta { font-size: 0.85rem; color: var(--muted); }
    .snippet { margin: 0.3rem 0; font-size: 0.95rem; }
    mark { background: var(--mark); color: inherit; }
    .actions { display: flex; gap: 0.5rem; margin-top: 0.3rem; }
    .actions form { margin: 0; }
    .actions button, .mark-all button { font: inherit; font-size: 0.8rem; padding: 0.15rem 0.6rem; color: inherit;
      background: transparent; border: 1px solid var(--line); border-radius: 4px; cursor: pointer; }
    .mark-all { margin: 0 0 0.5rem; }
    .filters { margin: 0 0 0.5rem; font-size: 0.9rem; }
    .pager { display: flex; gap: 1rem; justify-content: space-between; margin: 1rem 0; }
    .reader .content { margin-top: 1rem; overflow-wrap: break-word; }
    .reader .content img, .reader img.lead { max-width: 100%; height: auto; }
    .reader .content pre { overflow-x: auto; }
    .reader .content table { display: block; overflow-x: auto; border-collapse: collapse; }
    .reader .content blockquote { margin-left: 0; padding-left: 1rem; border-left: 3px solid var(--line); }
    .reader.starred h1::before { content: "★ "; color: #d19a00; }
    .reader:not(.unread) h1 { color: var(--muted); }
    .empty { color: var(--muted); }
    .keys { max-width: 46rem; margin: 0 auto; padding: 1rem; font-size: 0.8rem; color: var(--muted); }
    kbd { font: 0.8rem ui-monospace, monospace; border: 1px solid var(--line); border-radius: 3px; padding: 0 0.25rem; }
    @media (max-width: 30rem) { body { font-size: 16px; } .keys { display: none; } }
    """#
}
