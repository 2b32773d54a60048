/* The book's own behaviour. Jupyter Book adds every .js file in _static to every
   page; this one needs nothing from the network and no other script.

   1. Verdict tables: a table with the class "verdict-table", or one with a header
      cell reading "holds?" or "verdict" (pandas tables in outputs), gets the class
      "verdict-table"; each of its cells gets a data-label naming its column (the
      header above it; every level of a MultiIndex, the index's names for the index
      cells). book.css lays such a table out as cards on a phone: each row a card,
      each cell "label: value". A cell of the verdict column gets "verdict-cell", the
      cells that name the row (the index, or the first column of a table without
      one) get "verdict-key", an empty cell "verdict-empty". A row label that spans
      several rows (a pandas MultiIndex) is repeated in each row it spans, as a cell
      with the class "verdict-repeat" that only the cards show.
   2. Figures: every image of the article that is not already a link is wrapped in
      a link to the image file (class "book-zoom"); a click, a tap or Enter opens it
      full size in a dialog over the page (its caption below it); Escape, the close
      button or a click outside the image closes it. Without this script the link
      still opens the image file.
   3. MathJax on demand: a page with math names MathJax's loader in
      <script data-book-mathjax="..."> (book/_ext/book_assets.py) instead of loading
      it with the page; it is loaded when a formula comes within a quarter screen
      of the window, when the page is printed, or when book.loadMath() is called
      (which returns a promise that settles when MathJax has typeset the page). */
(function () {
  "use strict";

  const VERDICT_HEADERS = ["holds?", "verdict"];
  const text = (cell) => (cell ? cell.textContent.replace(/\s+/g, " ").trim() : "");

  /* ---------------------------------------------------------------- tables */

  /* The cells of a table section as a grid: grid[r][c] is the cell covering row r
     and column c (a cell spanning rows or columns appears in every slot it covers).
     Returns {grid, starts}: starts maps a cell to its [row, column]. */
  function layout(rows) {
    const grid = [];
    const starts = new Map();
    rows.forEach((row, r) => {
      grid[r] = grid[r] || [];
      let c = 0;
      for (const cell of row.cells) {
        while (grid[r][c]) c++;
        starts.set(cell, [r, c]);
        const rs = Math.max(1, cell.rowSpan || 1), cs = Math.max(1, cell.colSpan || 1);
        for (let i = 0; i < rs && r + i < rows.length; i++) {
          grid[r + i] = grid[r + i] || [];
          for (let j = 0; j < cs; j++) grid[r + i][c + j] = cell;
        }
        c += cs;
      }
    });
    return {grid, starts};
  }

  function headerRows(table) {
    if (table.tHead) return Array.from(table.tHead.rows);
    // a table without <thead>: its leading rows of header cells only
    const rows = [];
    for (const row of table.rows) {
      if (row.cells.length && Array.from(row.cells).every((c) => c.tagName === "TH")) rows.push(row);
      else break;
    }
    return rows;
  }

  function bodyRows(table, heads) {
    return Array.from(table.rows).filter((row) => !heads.includes(row) && !row.closest("tfoot"));
  }

  /* The label of each column: the distinct non-empty header texts above it, top
     to bottom, joined with " / " (pandas writes a MultiIndex's levels one per row,
     and the index's names in a row of their own). */
  function columnLabels(heads) {
    const {grid} = layout(heads);
    const width = Math.max(0, ...grid.map((row) => row.length));
    const labels = [];
    for (let c = 0; c < width; c++) {
      const parts = [];
      for (const row of grid) {
        const t = text(row[c]);
        if (t && !parts.includes(t)) parts.push(t);
      }
      labels.push(parts.join(" / "));
    }
    return labels;
  }

  function isVerdictTable(table, heads) {
    if (table.classList.contains("verdict-table")) return true;
    return heads.some((row) => Array.from(row.cells).some(
      (cell) => VERDICT_HEADERS.includes(text(cell).toLowerCase())));
  }

  function labelVerdictTable(table) {
    const heads = headerRows(table);
    if (!isVerdictTable(table, heads)) return false;
    table.classList.add("verdict-table");
    for (const row of heads) if (!row.closest("thead")) row.classList.add("verdict-head-row");
    const labels = columnLabels(heads);
    const verdictColumns = labels.map((l, c) => [l, c])
      .filter(([l]) => VERDICT_HEADERS.includes(l.split(" / ").pop().toLowerCase()))
      .map(([, c]) => c);
    const rows = bodyRows(table, heads);
    const {grid, starts} = layout(rows);
    const width = Math.max(labels.length, ...grid.map((row) => row.length));
    const hasIndex = rows.some((row) => row.cells.length && row.cells[0].tagName === "TH"
                                        && (row.cells[0].colSpan || 1) < width);
    for (const row of rows) {
      for (const cell of row.cells) {
        const [, c] = starts.get(cell);
        const spansAll = (cell.colSpan || 1) >= width && width > 1;
        if (spansAll) { cell.classList.add("verdict-group"); continue; }
        if (!cell.hasAttribute("data-label") && labels[c]) cell.setAttribute("data-label", labels[c]);
        if (verdictColumns.includes(c)) cell.classList.add("verdict-cell");
        if (cell.tagName === "TH" ? hasIndex : (!hasIndex && c === 0)) cell.classList.add("verdict-key");
        if (!text(cell) && !cell.querySelector("img")) cell.classList.add("verdict-empty");
      }
    }
    // A row label spanning several rows is repeated, for the cards, in the rows it spans.
    rows.forEach((row, r) => {
      const mine = new Set(row.cells);
      const before = [];
      for (let c = 0; c < grid[r].length; c++) {
        const cell = grid[r][c];
        if (!cell || mine.has(cell) || before.includes(cell)) continue;
        if (starts.get(cell)[1] !== c || (cell.rowSpan || 1) < 2) continue;
        before.push(cell);
      }
      if (!before.length) return;
      const copies = before.map((cell) => {
        const copy = cell.cloneNode(true);
        copy.removeAttribute("rowspan");
        copy.removeAttribute("id");
        copy.classList.add("verdict-repeat");
        copy.setAttribute("aria-hidden", "true");
        return copy;
      });
      row.prepend(...copies);
    });
    return true;
  }

  function labelTables(root) {
    let n = 0;
    for (const table of root.querySelectorAll("table")) {
      if (table.parentElement.closest("table")) continue;
      try { if (labelVerdictTable(table)) n++; }
      catch (e) { /* a table this code cannot read keeps its ordinary layout */ }
    }
    return n;
  }

  /* --------------------------------------------------------------- figures */

  let dialog = null;
  let opener = null;

  function ensureDialog() {
    if (dialog) return dialog;
    dialog = document.createElement("dialog");
    dialog.className = "book-zoom-dialog";
    dialog.setAttribute("aria-label", "Figure, full size");
    dialog.innerHTML =
      '<button type="button" class="book-zoom-close" aria-label="Close the full-size figure">' +
      '<span aria-hidden="true">\u00d7</span> Close</button>' +
      '<div class="book-zoom-body"><img alt=""><p class="book-zoom-caption"></p></div>';
    dialog.querySelector(".book-zoom-close").addEventListener("click", () => dialog.close());
    // a click on the backdrop (outside the figure and its caption) closes the dialog
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog || event.target.classList.contains("book-zoom-body")) dialog.close();
    });
    dialog.addEventListener("close", () => {
      document.documentElement.classList.remove("book-zoom-open");
      if (opener) opener.focus();
      opener = null;
    });
    document.body.appendChild(dialog);
    return dialog;
  }

  function openFigure(link) {
    const img = link.querySelector("img");
    const d = ensureDialog();
    const big = d.querySelector("img");
    big.src = link.href;
    big.alt = img ? img.alt : "";
    const figure = link.closest("figure");
    // the caption's number and text (Sphinx's figcaption also holds a "#" permalink)
    const caption = figure && figure.querySelector("figcaption");
    const parts = caption ? caption.querySelectorAll(".caption-number, .caption-text") : [];
    const captionText = parts.length ? Array.from(parts, text).join(" ") : text(caption);
    const p = d.querySelector(".book-zoom-caption");
    p.textContent = captionText;
    p.hidden = !captionText;
    opener = link;
    document.documentElement.classList.add("book-zoom-open");
    if (typeof d.showModal === "function") d.showModal();
    else { window.location.href = link.href; return; }
    d.querySelector(".book-zoom-close").focus();
    d.scrollTop = 0;
  }

  function zoomableImages(root) {
    const article = root.querySelector("article.bd-article") || root.querySelector("main");
    if (!article) return [];
    return Array.from(article.querySelectorAll("img")).filter(
      (img) => !img.closest("a") && img.getAttribute("src"));
  }

  function makeZoomable(root) {
    let n = 0;
    for (const img of zoomableImages(root)) {
      const link = document.createElement("a");
      link.className = "book-zoom";
      link.href = img.getAttribute("src");
      const what = img.alt && !/\.(png|jpe?g|svg|gif|webp)$/i.test(img.alt) ? img.alt : "the figure";
      link.setAttribute("aria-label", "Open full size: " + what);
      link.title = "Open full size";
      img.replaceWith(link);
      link.appendChild(img);
      link.addEventListener("click", (event) => {
        if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;
        event.preventDefault();
        openFigure(link);
      });
      n++;
    }
    return n;
  }

  /* ---------------------------------------------------------------- math */

  let mathLoading = null;

  function loadMath() {
    if (mathLoading) return mathLoading;
    const tag = document.querySelector("script[data-book-mathjax]");
    if (!tag) return Promise.resolve(false);
    mathLoading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = tag.getAttribute("data-book-mathjax");
      script.async = true;
      script.onload = resolve;
      script.onerror = () => reject(new Error("MathJax did not load: " + script.src));
      document.head.appendChild(script);
    }).then(() => window.MathJax && MathJax.startup ? MathJax.startup.promise : null)
      .then(() => true);
    return mathLoading;
  }

  function mathOnDemand() {
    if (!document.querySelector("script[data-book-mathjax]")) return;
    const formulas = document.querySelectorAll(".math");
    if (!formulas.length || !("IntersectionObserver" in window)) { loadMath(); return; }
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) { observer.disconnect(); loadMath(); }
    }, {rootMargin: "25% 0px 25% 0px"});
    formulas.forEach((formula) => observer.observe(formula));
    window.addEventListener("beforeprint", loadMath, {once: true});
  }

  function init() {
    const tables = labelTables(document);
    const figures = makeZoomable(document);
    document.documentElement.dataset.bookJs = `tables:${tables} figures:${figures}`;
    mathOnDemand();
  }

  window.book = {labelTables, makeZoomable, columnLabels, loadMath};
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
