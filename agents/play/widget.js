// Front end of agents.widget.PlayWidget (an anywidget ES module).
//
// It draws what the Python side sends (the SVG board, the status, the labels
// of the buttons) and sends back messages; every rule lives in Python:
//   {type: "click", cell, colour: "own" | "opponent", ply}
//   {type: "button", name: "pass" | "undo" | "hint" | "new", as?, ply}
//   {type: "choose", action, ply}   (one of `choices`, [label, action]: YINSH's rows)
// A click hits the nearest point of `points` ([point, x, y] in the SVG's
// pixels) within `pick_radius`; the SVG may be scaled, so the click is mapped
// back through the SVG's screen transform.

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

let instances = 0;

function render({ model, el }) {
  const id = `odd-play-${++instances}`;
  el.classList.add("odd-play");

  const players = element("div", "odd-play-players");
  const status = element("div", "odd-play-status");

  // Which colour a click places: the toggle, flipped while shift is held.
  const toggle = element("div", "odd-play-toggle");
  const radios = [0, 1].map((i) => {
    const label = element("label");
    const input = element("input");
    input.type = "radio";
    input.name = `${id}-colour`;
    input.value = i === 0 ? "own" : "opponent";
    input.checked = i === 0;
    const text = element("span");
    label.append(input, text);
    toggle.append(label);
    return { label, input, text };
  });
  toggle.prepend(element("span", "odd-play-caption", "click places:"));

  const board = element("div", "odd-play-board");

  const buttons = element("div", "odd-play-buttons");
  const passButton = element("button", "odd-play-pass", "pass");
  const undoButton = element("button", "odd-play-undo", "undo");
  const hintButton = element("button", "odd-play-hint", "hint");
  const newButton = element("button", "odd-play-new", "new game as");
  const newColour = element("select", "odd-play-new-colour");
  buttons.append(passButton, undoButton, hintButton, newButton, newColour);

  const choices = element("div", "odd-play-choices");

  const message = element("div", "odd-play-message");
  el.append(players, status, toggle, board, choices, buttons, message);

  const send = (content) => model.send({ ...content, ply: model.get("ply") });
  passButton.addEventListener("click", () => send({ type: "button", name: "pass" }));
  undoButton.addEventListener("click", () => send({ type: "button", name: "undo" }));
  hintButton.addEventListener("click", () => send({ type: "button", name: "hint" }));
  newButton.addEventListener("click", () => send({ type: "button", name: "new", as: newColour.value }));

  board.addEventListener("click", (event) => {
    if (model.get("busy") || !model.get("your_turn")) return;
    const svg = board.querySelector("svg");
    const matrix = svg && svg.getScreenCTM();
    if (!matrix) return;
    const p = new DOMPoint(event.clientX, event.clientY).matrixTransform(matrix.inverse());
    let best = null;
    let bestDistance = Infinity;
    for (const [point, x, y] of model.get("points")) {
      const d = Math.hypot(p.x - x, p.y - y);
      if (d < bestDistance) {
        best = point;
        bestDistance = d;
      }
    }
    if (best === null || bestDistance > model.get("pick_radius")) return;
    const opponent = radios[1].input.checked !== event.shiftKey;
    send({ type: "click", cell: best, colour: opponent ? "opponent" : "own" });
  });

  function update() {
    const busy = model.get("busy");
    const yourTurn = model.get("your_turn");
    players.textContent = model.get("players");
    status.textContent = busy ? `${model.get("status")} (thinking...)` : model.get("status");
    board.innerHTML = model.get("svg");
    board.classList.toggle("odd-play-active", yourTurn && !busy);

    const labels = model.get("click_labels");
    toggle.style.visibility = labels.length ? "visible" : "hidden";
    radios.forEach((r, i) => { r.text.textContent = labels[i] || ""; });

    const buttonLabel = model.get("button_label");
    passButton.textContent = buttonLabel || "pass";
    passButton.disabled = busy || !buttonLabel;
    undoButton.disabled = busy || !model.get("can_undo");
    hintButton.disabled = busy || !yourTurn;
    newButton.disabled = busy;

    const names = model.get("colour_names");
    if (newColour.options.length !== names.length + 1) {
      newColour.replaceChildren(...[...names, "random"].map((n) => {
        const option = element("option", "", n);
        option.value = n;
        return option;
      }));
      newColour.value = model.get("human");
    }

    const offered = model.get("choices");
    choices.style.display = offered.length ? "" : "none";
    choices.replaceChildren(...offered.map(([label, action]) => {
      const button = element("button", "odd-play-choice", label);
      button.disabled = busy;
      button.addEventListener("click", () => send({ type: "choose", action }));
      return button;
    }));

    message.textContent = model.get("message");
    message.classList.toggle("odd-play-error", model.get("message_is_error"));
  }

  const traits = ["svg", "players", "status", "click_labels", "button_label", "choices", "can_undo",
    "your_turn", "busy", "message", "message_is_error", "human", "colour_names", "ply"];
  for (const name of traits) model.on(`change:${name}`, update);
  update();
  return () => {
    for (const name of traits) model.off(`change:${name}`, update);
  };
}

export default { render };
