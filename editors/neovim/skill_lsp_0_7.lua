-- skill-lsp for Neovim 0.7 (vim.lsp.start_client + vim.lsp.buf_attach_client; vim.lsp.start is 0.8+).
-- Attaches to Python files and to SKILL.md / skill.md, which keep the markdown filetype.
-- One server per project root. $SKILL_LSP_SERVER_CMD overrides the command, either as
-- words ("skill-lsp serve") or as a JSON list ('["/path/to/python", "-m", "skill_lsp", "serve"]').
local function skill_lsp_cmd()
  local override = vim.env.SKILL_LSP_SERVER_CMD
  if override == nil or vim.trim(override) == '' then
    return { 'skill-lsp', 'serve' }
  end
  if vim.startswith(vim.trim(override), '[') then
    return vim.fn.json_decode(override)
  end
  return vim.split(vim.trim(override), '%s+')
end

-- The nearest directory above the file holding one of these markers, never the home
-- directory (~/.claude and a dotfiles ~/.git would make the whole home a project).
local skill_lsp_markers = { '.agentdeck', '.claude', 'pyproject.toml', '.git' }

local function skill_lsp_root(path)
  local start = vim.fn.fnamemodify(path, ':p:h')
  local home = vim.loop.os_homedir()
  local dir = start
  while dir ~= home do
    for _, marker in ipairs(skill_lsp_markers) do
      if vim.loop.fs_stat(dir .. '/' .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return start
end

local skill_lsp_clients = {} -- root directory -> client id

local function skill_lsp_attach(bufnr)
  local path = vim.api.nvim_buf_get_name(bufnr)
  if path == '' or vim.bo[bufnr].buftype ~= '' then
    return
  end
  local file = vim.fn.fnamemodify(path, ':t')
  if vim.bo[bufnr].filetype == 'markdown' and file ~= 'SKILL.md' and file ~= 'skill.md' then
    return -- other Markdown files are not skills
  end
  local root = skill_lsp_root(path)
  local client_id = skill_lsp_clients[root]
  if client_id == nil or vim.lsp.get_client_by_id(client_id) == nil then
    client_id = vim.lsp.start_client({
      name = 'skill_lsp',
      cmd = skill_lsp_cmd(),
      root_dir = root,
      -- server settings (initializationOptions), for example:
      -- init_options = { ignore = { 'SK201' }, userSkillsDir = '~/.claude/skills' },
    })
    if client_id == nil then
      return
    end
    skill_lsp_clients[root] = client_id
  end
  vim.lsp.buf_attach_client(bufnr, client_id)
end

vim.api.nvim_create_autocmd('FileType', {
  group = vim.api.nvim_create_augroup('skill_lsp', { clear = true }),
  pattern = { 'markdown', 'python' },
  callback = function(args)
    skill_lsp_attach(args.buf)
  end,
})
