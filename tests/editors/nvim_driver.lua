-- Drives a headless Neovim that loaded a documented setup (editors/neovim/README.md): opens a SKILL.md
-- and an agent file of the fixture project (the current directory), waits for the client
-- to attach and for diagnostics, reads the virtual text and the diagnostic float, presses K
-- on a skill name and reads the hover float, completes a name with <C-x><C-o> (the buffer's
-- 'omnifunc'), opens a subagent and a TypeScript file, writes what it saw as JSON to
-- $SKILL_LSP_NVIM_RESULT and quits. Every wait is bounded; any error is recorded, never fatal.
local result_path = assert(vim.env.SKILL_LSP_NVIM_RESULT, 'SKILL_LSP_NVIM_RESULT is not set')
local timeout = tonumber(vim.env.SKILL_LSP_NVIM_TIMEOUT_MS or '30000')
local version = vim.version()
local result = { errors = {}, version = { version.major, version.minor, version.patch } }

local function skill_lsp_client(bufnr)
  -- vim.lsp.get_clients is 0.10+; 0.7 has buf_get_clients
  local clients = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, client in pairs(clients) do
    if client.name == 'skill_lsp' then
      return client
    end
  end
end

local function open(path, wait)
  vim.cmd('edit ' .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  local attached = vim.wait(wait or timeout, function()
    local client = skill_lsp_client(bufnr)
    return client ~= nil and client.initialized == true
  end, 50)
  local client = skill_lsp_client(bufnr)
  return bufnr, {
    path = path,
    filetype = vim.bo[bufnr].filetype,
    attached = attached,
    client_id = client and client.id or vim.NIL,
    root_dir = client and client.config.root_dir or vim.NIL,
    cmd = client and client.config.cmd or vim.NIL,
  }
end

local function wait_for_code(bufnr, code)
  return vim.wait(timeout, function()
    for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
      if diagnostic.code == code then
        return true
      end
    end
    return false
  end, 50)
end

local function diagnostics(bufnr)
  local items = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(items, {
      code = diagnostic.code,
      message = diagnostic.message,
      source = diagnostic.source,
      severity = diagnostic.severity,
      lnum = diagnostic.lnum,
      col = diagnostic.col,
      end_lnum = diagnostic.end_lnum,
      end_col = diagnostic.end_col,
    })
  end
  return items
end

local function floating_window()
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(win).relative ~= '' then
      return win
    end
  end
end

local function float_lines(win)
  local lines = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  vim.api.nvim_win_close(win, true)
  return lines
end

-- What the user reads on the screen: the virtual text of the line and the float of `<space>e`.
local function shown_diagnostics(bufnr, lnum)
  local client = skill_lsp_client(bufnr)
  local namespace = vim.diagnostic.get_namespace(vim.lsp.diagnostic.get_namespace(client.id))
  local virtual = {}
  for _, mark in ipairs(vim.api.nvim_buf_get_extmarks(bufnr, namespace.user_data.virt_text_ns or -1, 0, -1,
    { details = true })) do
    for _, chunk in ipairs(mark[4].virt_text or {}) do
      table.insert(virtual, chunk[1])
    end
  end
  vim.api.nvim_set_current_buf(bufnr)
  vim.api.nvim_win_set_cursor(0, { lnum + 1, 0 })
  local mapping = vim.fn.maparg('<space>e', 'n', false, true)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('<space>e', true, false, true), 'mx', false)
  local float = vim.wait(5000, function() return floating_window() ~= nil end, 20) and float_lines(floating_window()) or {}
  return { virtual_text = table.concat(virtual, ''), float = float, mapped = mapping.desc or vim.NIL }
end

-- The cursor inside the first occurrence of needle (a string literal): on its third byte.
local function cursor_on(bufnr, needle)
  vim.api.nvim_set_current_buf(bufnr)
  for number, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local start = line:find(needle, 1, true)
    if start then
      vim.api.nvim_win_set_cursor(0, { number, start + 1 })
      return true
    end
  end
  table.insert(result.errors, needle .. ' not found in buffer ' .. bufnr)
  return false
end

-- K, as the user presses it: the buffer's mapping, and the hover float it opens.
local function press_k_on(bufnr, needle)
  if cursor_on(bufnr, needle) then
    vim.api.nvim_feedkeys('K', 'mx', false)
    local opened = vim.wait(timeout, function() return floating_window() ~= nil end, 20)
    return { opened = opened, lines = opened and float_lines(floating_window()) or {} }
  end
end

local function hover_on(bufnr, needle)
  if not cursor_on(bufnr, needle) then
    return
  end
  local params = vim.lsp.util.make_position_params(0, skill_lsp_client(bufnr).offset_encoding)
  local responses = vim.lsp.buf_request_sync(bufnr, 'textDocument/hover', params, 10000)
  local texts = {}
  for _, response in pairs(responses or {}) do
    if response.err then
      table.insert(result.errors, 'hover error: ' .. vim.inspect(response.err))
    elseif response.result and response.result.contents then
      local contents = response.result.contents
      table.insert(texts, type(contents) == 'table' and (contents.value or vim.inspect(contents)) or contents)
    end
  end
  return { position = params.position, texts = texts }
end

local ok, err = pcall(function()
  local skill, skill_info = open('.agentdeck/skills/broken/SKILL.md')
  result.skill = skill_info
  result.skill.got_code = wait_for_code(skill, 'SK106')
  result.skill.diagnostics = diagnostics(skill)

  local agent, agent_info = open('.agentdeck/agents/booking/agent.py')
  result.agent = agent_info
  result.agent.got_code = wait_for_code(agent, 'AD101')
  result.agent.diagnostics = diagnostics(agent)
  result.hover = hover_on(agent, '"parse-request"')

  -- type the missing "u" of "parse-reqest" (an incremental didChange, unsaved): the unknown name
  -- (AD101) becomes a second "parse-request" (AD104, duplicate entry)
  local line = vim.api.nvim_buf_get_lines(agent, 2, 3, false)[1]
  local quote = line:find('"parse-reqest"', 1, true) - 1
  vim.api.nvim_buf_set_text(agent, 2, quote + #'"parse-req', 2, quote + #'"parse-req', { 'u' })
  result.edit = {
    line = vim.api.nvim_buf_get_lines(agent, 2, 3, false)[1],
    updated = vim.wait(timeout, function()
      local items = vim.diagnostic.get(agent)
      return #items == 1 and items[1].code == 'AD104'
    end, 50),
  }
  result.edit.diagnostics = diagnostics(agent)

  -- the client is running by now, so a Markdown file that is not a skill would attach at once
  local _, readme_info = open('README.md', 500)
  result.readme = readme_info
  local _, subagent_info = open('.claude/agents/reviewer.md')
  result.subagent = subagent_info
  local _, typescript_info = open('agent.ts')
  result.typescript = typescript_info
end)
if not ok then
  table.insert(result.errors, tostring(err))
end

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(result) }, result_path)
  vim.cmd('qall!')
end

-- "Create skill" chosen in vim.lsp.buf.code_action()'s menu (vim.ui.select answers as the user
-- would): Neovim applies the edit's documentChanges, a CreateFile and the new file's text.
local function create_skill_by_code_action()
  local path = '.agentdeck/agents/support/agent.py'
  vim.fn.mkdir(vim.fn.fnamemodify(path, ':h'), 'p')
  vim.fn.writefile({ 'from agentdeck import Agent', '', 'support = Agent(name="Support", skills=["greet-user"])' }, path)
  local bufnr = open(path)
  local found = wait_for_code(bufnr, 'AD101')
  cursor_on(bufnr, '"greet-user"')
  local offered = {}
  local select = vim.ui.select
  vim.ui.select = function(items, opts, on_choice)
    local chosen
    for _, item in ipairs(items) do
      local title = opts.format_item(item)
      table.insert(offered, title)
      if title:find('Create skill', 1, true) then
        chosen = item
      end
    end
    on_choice(chosen)
  end
  vim.lsp.buf.code_action()
  local created = vim.fn.fnamemodify('.agentdeck/skills/greet-user/SKILL.md', ':p')
  local made = vim.wait(timeout, function() return vim.fn.bufexists(created) == 1 end, 50)
  vim.ui.select = select
  local answer = {
    diagnostic = found,
    offered = offered,
    created = made,
    on_disk_before_write = vim.loop.fs_stat(created) ~= nil,
    lines = made and vim.api.nvim_buf_get_lines(vim.fn.bufnr(created), 0, -1, false) or {},
    -- where the client supports window/showDocument (0.8+), the server opens the new skill itself, with the
    -- cursor on its description; 0.7 leaves the agent file in the window
    opened = vim.wait(3000, function() return vim.api.nvim_get_current_buf() == vim.fn.bufnr(created) end, 50),
  }
  answer.cursor = vim.api.nvim_win_get_cursor(0)
  if made then
    -- the user saves it: the directory the skill needs is made on :write
    vim.api.nvim_set_current_buf(vim.fn.bufnr(created))
    vim.cmd('write')
    answer.written = vim.fn.readfile(created)
  end
  return answer
end

-- Completion last: <C-x><C-o> is typed keys, handled by the main loop once this script has returned,
-- and its items arrive asynchronously; a timer watches for them, then writes the result and quits.
local completing = pcall(function()
  result.create = create_skill_by_code_action()
  local agent = vim.fn.bufnr('.agentdeck/agents/booking/agent.py')
  vim.api.nvim_set_current_buf(agent)
  result.omnifunc = vim.bo[agent].omnifunc
  result.k_mapping = vim.fn.maparg('K', 'n', false, true).desc or vim.NIL
  result.shown = shown_diagnostics(agent, 2)
  result.k = press_k_on(agent, '"parse-request"')
  local line = vim.api.nvim_buf_get_lines(agent, 2, 3, false)[1]
  local at = line:find('"parse-request"', 1, true) - 1
  vim.api.nvim_buf_set_text(agent, 2, at, 2, at, { '"quo", ' })
  vim.api.nvim_win_set_cursor(0, { 3, at + #'"quo' })
  local started = vim.loop.now()
  local timer = vim.loop.new_timer()
  timer:start(100, 50, vim.schedule_wrap(function()
    local info = vim.fn.complete_info({ 'items' })
    if #info.items > 0 or vim.loop.now() - started > timeout then
      timer:stop()
      result.completion = { mode = vim.api.nvim_get_mode().mode, items = info.items }
      vim.cmd('stopinsert')
      finish()
    end
  end))
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes('i<C-x><C-o>', true, false, true), 'n', false)
end)
if not completing then
  table.insert(result.errors, 'completion could not start')
  finish()
end
