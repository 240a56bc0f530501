// The page's accessibility fixes that CSS cannot make (app/kit/layout.py mounts this once per page; it runs once
// per browser tab and follows every later change of the page):
//
// - a display equation fits its column: layout.py's style sheet lets it break after a relation or an operator,
//   and one still wider than its column (a long \text{…}, a wide fraction) is set smaller until it fits, as the
//   instrument's equations are (instrument.js `fitTerms`). WCAG 1.4.10: nothing scrolls sideways at 320 px, and a
//   scrolling box a keyboard cannot reach is not left behind.
// - Streamlit's page menu on a phone (the top bar folded into the sidebar) puts each section's links in a div
//   straight inside the menu's ul, with the links' li elements inside the div: neither a list item nor a list
//   (WCAG 1.3.1). Each such div is given the list item role and its li elements none, so the menu reads as a list
//   of Home and its sections, each section its header and links. Streamlit has no public way to change the menu's
//   markup; the roles are all this touches.
//
// No "<" before a letter or "/" anywhere in this file: Streamlit's st.html passes it through DOMPurify, which drops
// a script whose text looks like markup.
(() => {
  if (window.__lcsmPageScript) return;
  window.__lcsmPageScript = true;

  const SMALLEST = 30;    // % of the equation's size: below this it is unreadable anyway, and the loop must end
  const sized = new WeakMap();       // a display equation → the width it was fitted at (not fitted again)
  const watched = new WeakSet();
  const resized = new ResizeObserver((entries) => entries.forEach((entry) => fit(entry.target)));

  function fit(display) {
    const width = display.clientWidth;
    if (!width || sized.get(display) === width) return;
    const math = display.querySelector(":scope > .katex");
    if (!math) return;
    math.style.fontSize = "";
    let percent = 100;
    while (display.scrollWidth > display.clientWidth && percent > SMALLEST) {
      percent = Math.max(SMALLEST, Math.min(percent - 1, Math.floor((percent * display.clientWidth) / display.scrollWidth)));
      math.style.fontSize = `${percent}%`;
    }
    sized.set(display, display.clientWidth);
  }

  function watch(display) {          // a later change of its width (a fold opened, a column resized) refits it
    if (watched.has(display)) return;
    watched.add(display);
    resized.observe(display);
  }

  function fitEquations() {
    for (const display of document.querySelectorAll(".katex-display")) {
      watch(display);
      fit(display);
    }
  }

  function menuAsList() {
    for (const list of document.querySelectorAll("nav ul, nav ol")) {
      for (const child of list.children) {
        if (child.tagName === "LI" || child.hasAttribute("role")) continue;
        child.setAttribute("role", "listitem");
        for (const item of child.querySelectorAll(":scope > li:not([role])")) item.setAttribute("role", "none");
      }
    }
  }

  function refitAll() {        // a wider window, or KaTeX's fonts arriving, may let a set-smaller equation grow
    for (const display of document.querySelectorAll(".katex-display")) sized.delete(display);
    fitEquations();
  }
  window.addEventListener("resize", refitAll);
  document.fonts?.addEventListener("loadingdone", refitAll);

  // A mutation's fixes are made in the observer's callback, a microtask right after the change: no other script
  // (a screen reader's, axe's) reads the page between a redrawn menu or equation and its fix. Nothing waits for a
  // frame: an equation's later width changes reach `fit` through the resize observer, a window's or the fonts'
  // through refitAll.
  function drawn(records) {              // the display equations a mutation drew or redrew
    const found = new Set();
    for (const record of records) {
      const node = record.target.nodeType === Node.ELEMENT_NODE ? record.target : record.target.parentElement;
      const display = node?.closest(".katex-display");
      if (display) found.add(display);
      for (const added of record.addedNodes) {
        if (!(added instanceof HTMLElement)) continue;         // text, and a chart's SVG: never an equation
        if (added.matches(".katex-display")) found.add(added);
        for (const inner of added.querySelectorAll(".katex-display")) found.add(inner);
      }
    }
    return found;
  }
  new MutationObserver((records) => {
    menuAsList();
    for (const display of drawn(records)) {              // an equation drawn anew in the same box is fitted anew
      sized.delete(display);
      watch(display);
      fit(display);
    }
  }).observe(document.body, { childList: true, characterData: true, subtree: true });
  fitEquations();
  menuAsList();
})();
