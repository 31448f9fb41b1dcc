// Home page: create a table through the API, then go to it (the seat cookie is set).
const form = document.getElementById("create-table");
const strings = JSON.parse(document.getElementById("i18n").textContent);
const targetField = document.getElementById("target-field");
const errorBox = document.getElementById("create-error");

function showTarget() {
  targetField.hidden = form.elements.scoring.value === "hand";
}
form.addEventListener("change", showTarget);
showTarget();

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = new FormData(form);
  const body = {
    rules: data.get("rules"),
    scoring: data.get("scoring"),
    target: Number(data.get("target")),
    name: (data.get("name") || "").trim() || strings.default_name,
    lang: document.documentElement.lang, // the link preview speaks the creator's language
  };
  if (event.submitter?.value === "computer") body.computer = data.get("strength");
  const turnSeconds = Number(data.get("turn_seconds"));
  if (turnSeconds) body.turn_seconds = turnSeconds; // the optional turn clock
  errorBox.hidden = true;
  for (const b of form.querySelectorAll("button")) b.disabled = true;
  try {
    const response = await fetch("/api/tables", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
    });
    if (response.status !== 201) throw new Error(String(response.status));
    const answer = await response.json();
    location.assign(new URL(answer.url, location.href).pathname);
  } catch {
    errorBox.textContent = strings.error;
    errorBox.hidden = false;
    for (const b of form.querySelectorAll("button")) b.disabled = false;
  }
});
