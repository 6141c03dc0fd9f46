-- Drives a headless Neovim that loaded editors/neovim/skill_lsp_0_7.lua: opens a SKILL.md
-- and an agent file of the fixture project (the current directory), waits for the client
-- to attach and for diagnostics, hovers a skill name, writes what it saw as JSON to
-- $SKILL_LSP_NVIM_RESULT and quits. Every wait is bounded; any error is recorded, never fatal.
local result_path = assert(vim.env.SKILL_LSP_NVIM_RESULT, 'SKILL_LSP_NVIM_RESULT is not set')
local timeout = tonumber(vim.env.SKILL_LSP_NVIM_TIMEOUT_MS or '30000')
local result = { errors = {} }

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

local function hover_on(bufnr, needle)
  vim.api.nvim_set_current_buf(bufnr)
  for number, line in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    local start = line:find(needle, 1, true)
    if start then
      -- the cursor inside the string literal: the byte column of its third character
      vim.api.nvim_win_set_cursor(0, { number, start + 1 })
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
  end
  table.insert(result.errors, needle .. ' not found in buffer ' .. bufnr)
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
end)
if not ok then
  table.insert(result.errors, tostring(err))
end
vim.fn.writefile({ vim.fn.json_encode(result) }, result_path)
vim.cmd('qall!')
