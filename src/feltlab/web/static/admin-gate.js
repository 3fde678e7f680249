// What /admin shows anyone but an admin: the header, and on the sign-in page a form that
// signs in and opens the console (the server decides again whether it is an admin's).
import { api, header, say } from "/static/common.js";

const form = document.getElementById("gate-form");

async function signIn(event) {
  event.preventDefault();
  const status = document.getElementById("gate-status");
  say(status, "Signing in…");
  try {
    await api("POST", "/login", { username: document.getElementById("gate-username").value.trim(),
                                  password: document.getElementById("gate-password").value });
    window.location.reload();
  } catch (error) {
    say(status, error.message, true);
  }
}

if (form) form.addEventListener("submit", signIn);
header();
