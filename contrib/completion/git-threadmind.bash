# bash completion for `git threadmind` (threadmind-git).
#
# git's own completion (git-completion.bash) calls _git_threadmind for
# `git threadmind <TAB>`.  Installed as
#   $PREFIX/share/bash-completion/completions/git-threadmind
# bash-completion loads it by itself the first time; otherwise source this
# file after git's completion, e.g. in ~/.bashrc:
#   . /usr/share/bash-completion/completions/git
#   . ~/.local/share/bash-completion/completions/git-threadmind
# zsh: set up git's zsh bridge (git-completion.zsh), then source this file
# from ~/.zshrc; the bridge calls _git_threadmind as bash does.
#
# Commands come from `git threadmind -h`, options from `<command> -h` (one
# run per command and shell, then cached), thread ids from the file names
# under .threadmind/threads/<project>/ (no git threadmind run), revisions
# of `diff`, `log` and `show` from `git for-each-ref` (`A..B`, `A...B`).

__git_threadmind_commands=
__git_threadmind_hooks="post-checkout post-commit post-merge post-rewrite pre-commit"

# Offer the words of $1 that complete the part of $cur after $2.
__git_threadmind_comp ()
{
	local list="$1" part="${cur#"${2-}"}" w
	if command -v __gitcomp >/dev/null 2>&1; then
		__gitcomp "$list" "" "$part"
		return
	fi
	COMPREPLY=()
	for w in $list; do
		case "$w" in
		"$part"*) COMPREPLY+=("$w") ;;
		esac
	done
}

__git_threadmind_list_commands ()
{
	if [ -z "$__git_threadmind_commands" ]; then
		__git_threadmind_commands=$(git threadmind -h 2>/dev/null |
			sed -n 's/^    \([a-z][a-z]*\) .*/\1/p')
	fi
	printf '%s\n' $__git_threadmind_commands
}

# The long options of command $1, `--name=` for those taking a value
# (both `--name` and `--name=` for an optional one, `--name[=<value>]`).
__git_threadmind_options ()
{
	local opts
	# $1 is one of the commands `git threadmind -h` lists: a plain word
	eval "opts=\${__git_threadmind_opts_$1-}"
	if [ -z "$opts" ]; then
		opts=$(git threadmind "$1" -h 2>/dev/null |
			sed -n 's/^    \(-., \)\{0,1\}\(--[a-z-]*\)\[=<.*/\2 \2=/p
				s/^    \(-., \)\{0,1\}\(--[a-z-]*\) <.*/\2=/p
				s/^    \(-., \)\{0,1\}\(--[a-z-]*\) .*/\2/p' | tr '\n' ' ')
		eval "__git_threadmind_opts_$1=\$opts"
	fi
	printf '%s\n' "$opts"
}

# The subcommands of command $1: the plain word after `git threadmind $1`
# in its usage lines (`project [list]`, `project new <title>`, ...).
__git_threadmind_subcommands ()
{
	local subs
	eval "subs=\${__git_threadmind_subs_$1-}"
	if [ -z "$subs" ]; then
		subs=$(git threadmind "$1" -h 2>/dev/null |
			sed -n 's/^.*git threadmind [a-z]* \[\{0,1\}\([a-z][a-z]*\)\]\{0,1\}\( .*\)\{0,1\}$/\1/p' |
			tr '\n' ' ')
		eval "__git_threadmind_subs_$1=\$subs"
	fi
	printf '%s\n' "$subs"
}

# The value of --project on the command line, if any.
__git_threadmind_project_arg ()
{
	local i
	for ((i = 1; i < cword; i++)); do
		case "${words[i]}" in
		--project=*) printf '%s\n' "${words[i]#--project=}"; return ;;
		--project) printf '%s\n' "${words[i + 1]-}"; return ;;
		esac
	done
}

__git_threadmind_store ()
{
	local top
	top=$(git rev-parse --show-toplevel 2>/dev/null) || return 1
	[ -d "$top/.threadmind" ] && printf '%s\n' "$top/.threadmind"
}

__git_threadmind_projects ()
{
	local store f
	store=$(__git_threadmind_store) || return 0
	for f in "$store"/projects/*.json; do
		[ -e "$f" ] || continue
		f=${f##*/}
		printf '%s\n' "${f%.json}"
	done
}

# Thread ids of the project named on the command line, else the active one
# (config.json), else of every project.
__git_threadmind_ids ()
{
	local store proj f
	store=$(__git_threadmind_store) || return 0
	proj=$(__git_threadmind_project_arg)
	if [ -z "$proj" ] && [ -f "$store/config.json" ]; then
		proj=$(sed -n 's/.*"activeProjectId": *"\([^"]*\)".*/\1/p' \
			"$store/config.json" 2>/dev/null)
	fi
	[ -n "$proj" ] && [ -d "$store/threads/$proj" ] || proj='*'
	for f in "$store"/threads/$proj/*.md; do
		[ -e "$f" ] || continue
		f=${f##*/}
		printf '%s\n' "${f%.md}"
	done
}

__git_threadmind_branches ()
{
	git for-each-ref --format='%(refname:short)' refs/heads 2>/dev/null
}

# Revisions: branches, tags, remote branches and HEAD, after the `A..` or
# `A...` typed so far.
__git_threadmind_revs ()
{
	local pfx="" w
	case "$cur" in
	*...*) pfx=${cur%...*}... ;;
	*..*) pfx=${cur%..*}.. ;;
	esac
	for w in HEAD $(git for-each-ref --format='%(refname:short)' \
		refs/heads refs/tags refs/remotes 2>/dev/null); do
		case "$pfx$w" in
		"$cur"*) COMPREPLY+=("$pfx$w") ;;
		esac
	done
}

# Thread ids after `<commit>:` (only the ids when ':' breaks words, as bash
# then completes the part after it).
__git_threadmind_commit_ids ()
{
	local rev=${cur%%:*} w pfx
	case "$COMP_WORDBREAKS" in
	*:*) pfx= ;;
	*) pfx="$rev:" ;;
	esac
	for w in $(__git_threadmind_ids); do
		case "$rev:$w" in
		"$cur"*) COMPREPLY+=("$pfx$w") ;;
		esac
	done
}

# Thread ids and revisions, both (diff's and log's first arguments).
__git_threadmind_ids_revs ()
{
	__git_threadmind_comp "$(__git_threadmind_ids)"
	__git_threadmind_revs
}

__git_threadmind_files ()
{
	COMPREPLY=($(compgen -f -- "$cur"))
	command -v compopt >/dev/null 2>&1 && compopt -o filenames 2>/dev/null
}

_git_threadmind ()
{
	local cmds sub="" i w c=${__git_cmd_idx-1} npos=0 prev_word dashdash=""
	local -a args=()
	cmds=$(__git_threadmind_list_commands)
	# the command: the first word after `threadmind` that is one, skipping
	# the global options (and --project's value); after the command, `--`
	# ends the options: every later word is an argument (`show -- -2`)
	for ((i = c + 1; i < cword; i++)); do
		if [ -n "$dashdash" ]; then
			args+=("${words[i]}")
			((npos++))
			continue
		fi
		case "${words[i]}" in
		--) [ -n "$sub" ] && dashdash=1 ;;
		--project) ((i++)) ;;
		-*) ;;
		*)
			if [ -z "$sub" ]; then
				for w in $cmds; do
					[ "$w" = "${words[i]}" ] && sub=$w
				done
				[ -n "$sub" ] && c=$i
			else
				args+=("${words[i]}")
				((npos++))
			fi
			;;
		esac
	done
	prev_word=${words[cword - 1]}
	[ -n "$dashdash" ] && prev_word=""

	case "$prev_word,$cur" in
	--project,*) __git_threadmind_comp "$(__git_threadmind_projects)"; return ;;
	--parent,*) __git_threadmind_comp "$(__git_threadmind_ids)"; return ;;
	--branch,*) __git_threadmind_comp "$(__git_threadmind_branches)"; return ;;
	--status,*) __git_threadmind_comp "active done abandoned all"; return ;;
	--mode,*) __git_threadmind_comp "solo team"; return ;;
	-F,* | --file,* | --paths,*) __git_threadmind_files; return ;;
	esac
	[ -n "$dashdash" ] || case "$cur" in
	--project=*) __git_threadmind_comp "$(__git_threadmind_projects)" --project=; return ;;
	--parent=*) __git_threadmind_comp "$(__git_threadmind_ids)" --parent=; return ;;
	--branch=*) __git_threadmind_comp "$(__git_threadmind_branches)" --branch=; return ;;
	--status=*) __git_threadmind_comp "active done abandoned all" --status=; return ;;
	--mode=*) __git_threadmind_comp "solo team" --mode=; return ;;
	--color=*) __git_threadmind_comp "always never auto" --color=; return ;;
	--*=*) return ;;
	esac
	case "$sub,${args[0]-},$cur" in
	set,*,branch=*) [ $npos -ge 1 ] && __git_threadmind_comp "$(__git_threadmind_branches)" branch=; return ;;
	project,set,mode=*) __git_threadmind_comp "solo team" mode=; return ;;
	esac

	if [ -z "$sub" ]; then
		case "$cur" in
		-*) __git_threadmind_comp "--project= --color --color= --no-color --quiet --ascii --version --help" ;;
		*) __git_threadmind_comp "$cmds" ;;
		esac
		return
	fi
	[ -n "$dashdash" ] || case "$cur" in
	-*)
		__git_threadmind_comp "$(__git_threadmind_options "$sub")"
		return
		;;
	esac
	case "$sub" in
	help) [ $npos = 0 ] && __git_threadmind_comp "$cmds" ;;
	hook) [ $npos = 0 ] && __git_threadmind_comp "$__git_threadmind_hooks" ;;
	project)
		case "$npos,${args[0]-}" in
		0,*) __git_threadmind_comp "$(__git_threadmind_subcommands project)" ;;
		1,use | 1,rm | 1,rename)
			__git_threadmind_comp "$(__git_threadmind_projects)" ;;
		*,set) __git_threadmind_comp "title= systemContext= mode=" ;;
		esac
		;;
	resolve) __git_threadmind_files ;;
	set)
		if [ $npos = 0 ]; then
			__git_threadmind_comp "$(__git_threadmind_ids)"
		else
			__git_threadmind_comp "title= paths= branch="
		fi
		;;
	move) [ $npos -lt 2 ] && __git_threadmind_comp "$(__git_threadmind_ids)" ;;
	touch) __git_threadmind_comp "$(__git_threadmind_ids)" ;;
	diff)
		if [ -n "$dashdash" ]; then
			__git_threadmind_comp "$(__git_threadmind_ids)"
		else
			__git_threadmind_ids_revs
		fi
		;;
	log)
		if [ -n "$dashdash" ]; then
			[ $npos = 0 ] &&
				__git_threadmind_comp "$(__git_threadmind_ids)"
		elif [ $npos = 0 ]; then
			__git_threadmind_ids_revs
		else
			__git_threadmind_revs
		fi
		;;
	show)
		case "$npos,$cur" in
		0,*:*) __git_threadmind_commit_ids ;;
		0,*) __git_threadmind_comp "$(__git_threadmind_ids)" ;;
		1,*) __git_threadmind_revs ;;
		esac
		;;
	switch | summary | edit | done | abandon | reopen | merge | rm)
		[ $npos = 0 ] && __git_threadmind_comp "$(__git_threadmind_ids)" ;;
	esac
	return 0
}

# `git-threadmind <TAB>` too, through git's wrapper when it is loaded.
if command -v __git_complete >/dev/null 2>&1; then
	__git_complete git-threadmind _git_threadmind
fi
