-- Drives prscope-server from a real Neovim 0.11: a review, UTF-8 columns on a line with emoji and
-- combining marks, then an edit above a finding and its quick fix, then "Dismiss finding". Writes what it
-- saw as JSON to
-- $PRSCOPE_OUT. Run: nvim --headless --clean -n -u NONE -l review_and_fix.lua
local root = os.getenv("PRSCOPE_ROOT")
local out = os.getenv("PRSCOPE_OUT")
local python = os.getenv("PRSCOPE_PYTHON")
local report = { steps = {} }

local function finish()
  vim.fn.writefile({ vim.json.encode(report) }, out)
  vim.cmd("qa!")
end

local function step(name, ok, detail, keep_going)
  table.insert(report.steps, { name = name, ok = ok and true or false, detail = detail })
  if not ok and not keep_going then
    finish()
  end
end

vim.cmd.edit(root .. "/app.py")
local app = vim.api.nvim_get_current_buf()
vim.cmd.edit(root .. "/worker.py")
local worker = vim.api.nvim_get_current_buf()

local id = vim.lsp.start({
  name = "prscope",
  cmd = { python, "-m", "server" },
  root_dir = root,
  init_options = {},
})
vim.lsp.buf_attach_client(app, id)
local client = vim.lsp.get_client_by_id(id)
step("initialized", vim.wait(20000, function() return client.initialized end, 50))
report.offset_encoding = client.offset_encoding

local answer = client:request_sync("prscope/review", { base = "main" }, 60000, worker)
step("review answered", answer and answer.result, answer and answer.err)
report.status = answer.result.status

step("diagnostics", vim.wait(10000, function()
  return #vim.diagnostic.get(app) == 1 and #vim.diagnostic.get(worker) == 1
end, 50))

local breaking = vim.diagnostic.get(app)[1]
report.app_line = vim.api.nvim_buf_get_lines(app, breaking.lnum, breaking.lnum + 1, false)[1]
report.app_col = breaking.col
report.app_end_col = breaking.end_col
report.app_character = breaking.user_data.lsp.range.start.character

-- The diagnostic as the client holds it before the edit.
local stale = vim.diagnostic.get(worker)[1].user_data.lsp
vim.api.nvim_buf_set_lines(worker, 1, 1, false, { '    """Double x.', "", '    Returns twice x."""' })
step("diagnostic moved", vim.wait(10000, function()
  local now = vim.diagnostic.get(worker)
  return #now == 1 and now[1].lnum == 4
end, 50), nil, true)

-- The code action of `buf` whose title starts with `prefix`, asked with the LSP diagnostic `lsp`.
local function action_for(buf, lsp, prefix)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    range = lsp.range,
    context = { diagnostics = { lsp } },
  }
  local answer = client:request_sync("textDocument/codeAction", params, 10000, buf)
  step("code actions for " .. prefix, answer and answer.result, answer and answer.err)
  for _, action in ipairs(answer.result) do
    if action.title:find("^" .. prefix) then
      return action
    end
  end
end

local fix = action_for(worker, stale, "prscope: fix")
step("a fix is offered", fix ~= nil)
vim.lsp.util.apply_workspace_edit(fix.edit, client.offset_encoding)
report.worker_after = vim.api.nvim_buf_get_lines(worker, 0, -1, false)

-- Dismiss the breaking call as a client does: apply the action's edit when it has one (the configuration,
-- when the run store cannot be used), then run its command (records it in the store, hides it).
local call = vim.diagnostic.get(app)[1].user_data.lsp
report.dismissed_id = call.data.id
local dismiss = action_for(app, call, "prscope: dismiss")
step("a dismissal is offered", dismiss ~= nil)
report.dismiss_has_edit = dismiss.edit ~= nil
if dismiss.edit then
  vim.lsp.util.apply_workspace_edit(dismiss.edit, client.offset_encoding)
end
local ran = client:request_sync("workspace/executeCommand", {
  command = dismiss.command.command,
  arguments = dismiss.command.arguments,
}, 10000, app)
step("dismissal command", ran and ran.result, ran and ran.err)
report.dismiss_recorded = ran.result.recorded
step("dismissed finding hidden", vim.wait(10000, function() return #vim.diagnostic.get(app) == 0 end, 50))
finish()
