// Pan and zoom of the map by its viewBox: wheel, drag and pinch through pointer events,
// buttons and keys. A drag does not count as a click on what it started on. Each change
// the user makes is told to `onChange` (the page keeps it in the URL); `setView` and
// `fit`, the page's own, are not.

const DRAG_PIXELS = 5;
const MIN_SIZE = 5; // canvas units: the closest zoom
const MAX_FACTOR = 8; // the widest view, as a multiple of the drawing

export class PanZoom {
  constructor(svg, size, onChange = () => {}) {
    this.svg = svg;
    this.size = size; // {width, height} of the drawing
    this.onChange = onChange;
    this.view = { x: 0, y: 0, w: size.width, h: size.height };
    this.listeners = [];
    this.frame = null;
    this.upp = 1;
    this.rect = null; // the map's box on screen, read once per size (see box())
    new ResizeObserver(() => {
      this.rect = null;
      this.scaled();
    }).observe(svg);
    this.pointers = new Map();
    this.dragged = false;
    this.swallowClick = false;
    svg.addEventListener("wheel", (event) => this.onWheel(event), { passive: false });
    svg.addEventListener("pointerdown", (event) => this.onDown(event));
    svg.addEventListener("pointermove", (event) => this.onMove(event));
    for (const name of ["pointerup", "pointercancel"]) {
      svg.addEventListener(name, (event) => this.onUp(event));
    }
    svg.addEventListener("click", (event) => this.onClick(event), true);
    svg.addEventListener("keydown", (event) => this.onKey(event));
  }

  // Whether `view` shows any of the drawing (a link's box may not).
  shows(view) {
    const { width, height } = this.size;
    return view.x < width && view.y < height && view.x + view.w > 0 && view.y + view.h > 0;
  }

  setView(view) {
    const limit = Math.max(this.size.width, this.size.height) * MAX_FACTOR;
    const w = Math.min(Math.max(view.w, MIN_SIZE), limit);
    const h = (view.h * w) / view.w;
    this.view = { x: view.x, y: view.y, w, h };
    this.svg.setAttribute("viewBox", [view.x, view.y, w, h].map((n) => n.toFixed(3)).join(" "));
    this.scaled();
  }

  // Tell the stylesheet how many canvas units a CSS pixel is (`--upp` on the map), so
  // labels and markers keep their size on screen at any zoom without a script touching
  // each of them; then whoever listens (labels placed by collision) in the next frame.
  scaled() {
    const rect = this.box();
    const scale = Math.min(rect.width / this.view.w, rect.height / this.view.h);
    this.upp = scale > 0 && Number.isFinite(scale) ? 1 / scale : 1;
    this.svg.style.setProperty("--upp", String(this.upp));
    if (!this.frame) {
      this.frame = requestAnimationFrame(() => {
        this.frame = null;
        for (const listener of this.listeners) {
          listener(this.view, this.upp);
        }
      });
    }
  }

  // The map's size on screen: read from the layout once, then kept until it is resized
  // (a drag changes the view every frame; reading the layout after each change would
  // make the browser lay the page out again each time).
  box() {
    if (!this.rect) {
      this.rect = this.svg.getBoundingClientRect();
    }
    return this.rect;
  }

  // `listener(view, unitsPerPixel)` after each change of the view, once per frame.
  onScale(listener) {
    this.listeners.push(listener);
  }

  // Show `box` ({x, y, width, height}) whole, with a margin.
  fit(box) {
    const pad = Math.max(box.width, box.height) * 0.03 + 1;
    this.setView({ x: box.x - pad, y: box.y - pad, w: box.width + 2 * pad, h: box.height + 2 * pad });
  }

  // Canvas coordinates of a point on screen.
  toCanvas(clientX, clientY) {
    const matrix = this.svg.getScreenCTM();
    if (!matrix) {
      return null;
    }
    const point = new DOMPoint(clientX, clientY).matrixTransform(matrix.inverse());
    return { x: point.x, y: point.y };
  }

  // Canvas units per screen pixel.
  unitsPerPixel() {
    const matrix = this.svg.getScreenCTM();
    return matrix && matrix.a ? 1 / matrix.a : 1;
  }

  // Centre the view on canvas point (x, y), keeping the zoom (a maneuver, a location).
  centreOn(x, y) {
    const v = this.view;
    this.setView({ x: x - v.w / 2, y: y - v.h / 2, w: v.w, h: v.h });
    this.onChange(this.view);
  }

  zoomAt(factor, clientX, clientY) {
    const at = this.toCanvas(clientX, clientY);
    if (!at) {
      return;
    }
    const v = this.view;
    this.setView({
      x: at.x - (at.x - v.x) / factor,
      y: at.y - (at.y - v.y) / factor,
      w: v.w / factor,
      h: v.h / factor,
    });
    this.onChange(this.view);
  }

  zoomCentre(factor) {
    const rect = this.svg.getBoundingClientRect();
    this.zoomAt(factor, rect.left + rect.width / 2, rect.top + rect.height / 2);
  }

  panBy(dxPixels, dyPixels) {
    const scale = this.unitsPerPixel();
    const v = this.view;
    this.setView({ x: v.x - dxPixels * scale, y: v.y - dyPixels * scale, w: v.w, h: v.h });
    this.onChange(this.view);
  }

  onWheel(event) {
    event.preventDefault();
    const lines = event.deltaMode === 1 ? 33 : event.deltaMode === 2 ? 400 : 1;
    this.zoomAt(Math.exp(-event.deltaY * lines * 0.0015), event.clientX, event.clientY);
  }

  onDown(event) {
    if (event.button !== undefined && event.button > 0) {
      return;
    }
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    if (this.pointers.size === 1) {
      this.start = { x: event.clientX, y: event.clientY };
      this.dragged = false;
    }
  }

  onMove(event) {
    const last = this.pointers.get(event.pointerId);
    if (!last) {
      return;
    }
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()];
      const other = a === last ? b : a;
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(event.clientX - other.x, event.clientY - other.y);
      const midBefore = { x: (last.x + other.x) / 2, y: (last.y + other.y) / 2 };
      const mid = { x: (event.clientX + other.x) / 2, y: (event.clientY + other.y) / 2 };
      if (before > 0 && after > 0) {
        this.zoomAt(after / before, mid.x, mid.y);
      }
      this.panBy(mid.x - midBefore.x, mid.y - midBefore.y);
      this.dragged = true;
    } else if (this.pointers.size === 1) {
      const moved = Math.hypot(event.clientX - this.start.x, event.clientY - this.start.y);
      if (!this.dragged && moved > DRAG_PIXELS) {
        this.dragged = true;
        this.svg.setPointerCapture(event.pointerId);
        this.svg.classList.add("dragging");
        this.panBy(event.clientX - this.start.x, event.clientY - this.start.y);
      } else if (this.dragged) {
        this.panBy(event.clientX - last.x, event.clientY - last.y);
      }
    }
    this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
  }

  onUp(event) {
    if (!this.pointers.delete(event.pointerId)) {
      return;
    }
    if (this.pointers.size === 0) {
      this.svg.classList.remove("dragging");
      this.swallowClick = this.dragged;
      this.dragged = false;
    }
  }

  onClick(event) {
    if (this.swallowClick) {
      this.swallowClick = false;
      event.stopPropagation();
      event.preventDefault();
    }
  }

  onKey(event) {
    if (event.target !== this.svg || event.altKey || event.ctrlKey || event.metaKey) {
      return; // on a unit, arrows move between units
    }
    const step = 60;
    const actions = {
      "+": () => this.zoomCentre(1.25),
      "=": () => this.zoomCentre(1.25),
      "-": () => this.zoomCentre(0.8),
      ArrowLeft: () => this.panBy(step, 0),
      ArrowRight: () => this.panBy(-step, 0),
      ArrowUp: () => this.panBy(0, step),
      ArrowDown: () => this.panBy(0, -step),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  }
}
