// Keys 1-4 press the matching vote button, unless the annotator is typing a rationale.
document.addEventListener("keydown", function (event) {
  if (event.target && (event.target.tagName === "TEXTAREA" || event.target.tagName === "INPUT")) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  var button = document.querySelector('form.vote button[data-key="' + event.key + '"]');
  if (button) button.click();
});
