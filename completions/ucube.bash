#!/bin/bash

__ucube_cursor_index_in_current_word() {
    local remaining="${COMP_LINE}"

    local word
    for word in "${COMP_WORDS[@]::COMP_CWORD}"; do
        remaining="${remaining##*([[:space:]])"${word}"*([[:space:]])}"
    done

    local -ir index="$((COMP_POINT - ${#COMP_LINE} + ${#remaining}))"
    if [[ "${index}" -le 0 ]]; then
        printf 0
    else
        printf %s "${index}"
    fi
}

# positional arguments:
#
# - 1: the current (sub)command's count of positional arguments
#
# required variables:
#
# - repeating_flags: the repeating flags that the current (sub)command can accept
# - non_repeating_flags: the non-repeating flags that the current (sub)command can accept
# - repeating_options: the repeating options that the current (sub)command can accept
# - non_repeating_options: the non-repeating options that the current (sub)command can accept
# - positional_number: value ignored
# - unparsed_words: unparsed words from the current command line
#
# modified variables:
#
# - non_repeating_flags: remove flags for this (sub)command that are already on the command line
# - non_repeating_options: remove options for this (sub)command that are already on the command line
# - positional_number: set to the current positional number
# - unparsed_words: remove all flags, options, and option values for this (sub)command
__ucube_offer_flags_options() {
    local -ir positional_count="${1}"
    positional_number=0

    local was_flag_option_terminator_seen=false
    local is_parsing_option_value=false

    local -ar unparsed_word_indices=("${!unparsed_words[@]}")
    local -i word_index
    for word_index in "${unparsed_word_indices[@]}"; do
        if "${is_parsing_option_value}"; then
            # This word is an option value:
            # Reset marker for next word iff not currently the last word
            [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]] && is_parsing_option_value=false
            unset "unparsed_words[${word_index}]"
            # Do not process this word as a flag or an option
            continue
        fi

        local word="${unparsed_words["${word_index}"]}"
        if ! "${was_flag_option_terminator_seen}"; then
            case "${word}" in
            --)
                unset "unparsed_words[${word_index}]"
                # by itself -- is a flag/option terminator, but if it is the last word, it is the start of a completion
                if [[ "${word_index}" -ne "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                    was_flag_option_terminator_seen=true
                fi
                continue
                ;;
            -*)
                # ${word} is a flag or an option
                # If ${word} is an option, mark that the next word to be parsed is an option value
                local option
                for option in "${repeating_options[@]}" "${non_repeating_options[@]}"; do
                    [[ "${word}" = "${option}" ]] && is_parsing_option_value=true && break
                done

                # Remove ${word} from ${non_repeating_flags} or ${non_repeating_options} so it isn't offered again
                local not_found=true
                local -i index
                for index in "${!non_repeating_flags[@]}"; do
                    if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                        unset "non_repeating_flags[${index}]"
                        non_repeating_flags=("${non_repeating_flags[@]}")
                        not_found=false
                        break
                    fi
                done
                if "${not_found}"; then
                    for index in "${!non_repeating_flags[@]}"; do
                        if [[ "${non_repeating_flags[${index}]}" = "${word}" ]]; then
                            unset "non_repeating_flags[${index}]"
                            non_repeating_flags=("${non_repeating_flags[@]}")
                            break
                        fi
                    done
                fi
                unset "unparsed_words[${word_index}]"
                continue
                ;;
            esac
        fi

        # ${word} is neither a flag, nor an option, nor an option value
        if [[ "${positional_number}" -lt "${positional_count}" || "${positional_count}" -lt 0 ]]; then
            # ${word} is a positional
            ((positional_number++))
            unset "unparsed_words[${word_index}]"
        else
            if [[ -z "${word}" ]]; then
                # Could be completing a flag, option, or subcommand
                positional_number=-1
            else
                # ${word} is a subcommand or invalid, so stop processing this (sub)command
                positional_number=-2
            fi
            break
        fi
    done

    unparsed_words=("${unparsed_words[@]}")

    if\
        ! "${was_flag_option_terminator_seen}"\
        && ! "${is_parsing_option_value}"\
        && [[ ("${cur}" = -* && "${positional_number}" -ge 0) || "${positional_number}" -eq -1 ]]
    then
        COMPREPLY+=($(compgen -W "${repeating_flags[*]} ${non_repeating_flags[*]} ${repeating_options[*]} ${non_repeating_options[*]}" -- "${cur}"))
    fi
}

__ucube_add_completions() {
    local completion
    while IFS='' read -r completion; do
        COMPREPLY+=("${completion}")
    done < <(IFS=$'\n' compgen "${@}" -- "${cur}")
}

__ucube_custom_complete() {
    if [[ -n "${cur}" || -z ${COMP_WORDS[${COMP_CWORD}]} || "${COMP_LINE:${COMP_POINT}:1}" != ' ' ]]; then
        local -ar words=("${COMP_WORDS[@]}")
    else
        local -ar words=("${COMP_WORDS[@]::${COMP_CWORD}}" '' "${COMP_WORDS[@]:${COMP_CWORD}}")
    fi

    "${COMP_WORDS[0]}" "${@}" "${words[@]}"
}

_ucube() {
    local state
    state="$(shopt -p;shopt -po)"
    trap "${state//$'\n'/;}" RETURN
    shopt -s extglob
    set +o history +o posix

    local -xr SAP_SHELL=bash
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(IFS='.';printf %s "${BASH_VERSINFO[*]}")"
    local -r SAP_SHELL_VERSION

    local -r cur="${2}"
    local -r prev="${3}"

    local -i positional_number
    local -a unparsed_words=("${COMP_WORDS[@]:1:${COMP_CWORD}}")

    local -a repeating_flags=()
    local -a non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    local -a repeating_options=(--device)
    local -a non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    info|pay|read-card|display|choose|cancel|history|locale|rpc|decode|simulate|sim|test|shell|scan|connect|mdm-register|mdm-update|fleet-merge|send-logs|diagnose|serve|help)
        # Offer subcommand argument completions
        "_ucube_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'info pay read-card display choose cancel history locale rpc decode simulate sim test shell scan connect mdm-register mdm-update fleet-merge send-logs diagnose serve help' -- "${cur}"))
        ;;
    esac
}

_ucube_info() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --devices --parallel --junit --max-failures --shard --shard-host)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion info -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--devices')
        __ucube_add_completions -f
        return
        ;;
    '--parallel')
        return
        ;;
    '--junit')
        __ucube_add_completions -f
        return
        ;;
    '--max-failures')
        return
        ;;
    '--shard')
        return
        ;;
    '--shard-host')
        return
        ;;
    esac
}

_ucube_pay() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --force-online-pin --force-authorization --debug-logs --events --step --receipt --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --currency --type --cashback --readers --card-timeout --lang --pin-format --pin-key-slot --authorization-tags --authorization-secured-tags --finalization-tags --finalization-secured-tags --authorize --authorize-ca --authorize-cert --authorize-key --authorize-token-file --authorize-timeout --select --card --request-id --receipt-file)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion pay -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--currency')
        return
        ;;
    '--type')
        __ucube_add_completions -W 'purchase'$'\n''withdrawal'$'\n''purchase-cashback'$'\n''manual-cash'$'\n''refund'$'\n''inquiry'
        return
        ;;
    '--cashback')
        return
        ;;
    '--readers')
        return
        ;;
    '--card-timeout')
        return
        ;;
    '--lang')
        return
        ;;
    '--pin-format')
        __ucube_add_completions -W 'iso0'$'\n''iso1'$'\n''iso3'$'\n''iso4'
        return
        ;;
    '--pin-key-slot')
        return
        ;;
    '--authorization-tags')
        return
        ;;
    '--authorization-secured-tags')
        return
        ;;
    '--finalization-tags')
        return
        ;;
    '--finalization-secured-tags')
        return
        ;;
    '--authorize')
        return
        ;;
    '--authorize-ca')
        return
        ;;
    '--authorize-cert')
        return
        ;;
    '--authorize-key')
        return
        ;;
    '--authorize-token-file')
        return
        ;;
    '--authorize-timeout')
        return
        ;;
    '--select')
        return
        ;;
    '--card')
        __ucube_add_completions -W 'visa-contact'$'\n''mc-two-apps'$'\n''visa-offline-pin'$'\n''mc-online-pin'$'\n''visa-contactless'$'\n''mc-contactless-online'$'\n''mc-contactless-online-pin'$'\n''visa-contactless-declined'$'\n''visa-contactless-signature'$'\n''contactless-try-other'$'\n''contactless-end-application'$'\n''magstripe-chip-required'$'\n''no-common-app'$'\n''card-refused'$'\n''card-removed'$'\n''card-timeout'$'\n''declined-aac'$'\n''approved-offline-tc'$'\n''declines-second-ac'
        return
        ;;
    '--request-id')
        return
        ;;
    '--receipt-file')
        return
        ;;
    esac
}

_ucube_read-card() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --readers --card-timeout --card)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion read-card -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--readers')
        return
        ;;
    '--card-timeout')
        return
        ;;
    '--card')
        __ucube_add_completions -W 'visa-contact'$'\n''mc-two-apps'$'\n''visa-offline-pin'$'\n''mc-online-pin'$'\n''visa-contactless'$'\n''mc-contactless-online'$'\n''mc-contactless-online-pin'$'\n''visa-contactless-declined'$'\n''visa-contactless-signature'$'\n''contactless-try-other'$'\n''contactless-end-application'$'\n''magstripe-chip-required'$'\n''no-common-app'$'\n''card-refused'$'\n''card-removed'$'\n''card-timeout'$'\n''declined-aac'$'\n''approved-offline-tc'$'\n''declines-second-ac'
        return
        ;;
    esac
}

_ucube_display() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --wait-key --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --timeout)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion display -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_ucube_choose() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --title --timeout)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion choose -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--title')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_ucube_cancel() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion cancel -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_history() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __ucube_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|show|resolve|totals)
        # Offer subcommand argument completions
        "_ucube_history_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list show resolve totals' -- "${cur}"))
        ;;
    esac
}

_ucube_history_list() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --unresolved --version -h --help)
    repeating_options=(--device --status)
    non_repeating_options=(--record --rpc-timeout --log-level --last --since --until)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion history list -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--last')
        return
        ;;
    '--status')
        __ucube_add_completions -W 'approved'$'\n''declined'$'\n''cancelled'$'\n''card_wait_failed'$'\n''unsupported_card'$'\n''refused_card'$'\n''nfc_outcome_try_other_interface'$'\n''nfc_outcome_end_application'$'\n''nfc_outcome_failed'$'\n''chip_required'$'\n''nfc_mpos_error'$'\n''error'$'\n''error_disconnect'$'\n''error_shutting_down'$'\n''error_wrong_activated_reader'$'\n''error_missing_required_cryptogram'$'\n''error_wrong_cryptogram_value'$'\n''error_wrong_nfc_outcome'$'\n''reversed'$'\n''unknown'$'\n''unresolved'
        return
        ;;
    '--since')
        __ucube_add_completions -W 'today'$'\n''yesterday'
        return
        ;;
    '--until')
        __ucube_add_completions -W 'today'$'\n''yesterday'
        return
        ;;
    esac
}

_ucube_history_show() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --receipt --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --receipt-file)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion history show -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--receipt-file')
        return
        ;;
    esac
}

_ucube_history_resolve() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --status --note)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion history resolve -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--status')
        __ucube_add_completions -W 'approved'$'\n''declined'$'\n''cancelled'$'\n''card_wait_failed'$'\n''unsupported_card'$'\n''refused_card'$'\n''nfc_outcome_try_other_interface'$'\n''nfc_outcome_end_application'$'\n''nfc_outcome_failed'$'\n''chip_required'$'\n''nfc_mpos_error'$'\n''error'$'\n''error_disconnect'$'\n''error_shutting_down'$'\n''error_wrong_activated_reader'$'\n''error_missing_required_cryptogram'$'\n''error_wrong_cryptogram_value'$'\n''error_wrong_nfc_outcome'
        return
        ;;
    '--note')
        return
        ;;
    esac
}

_ucube_history_totals() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --since --until)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion history totals -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--since')
        __ucube_add_completions -W 'today'$'\n''yesterday'
        return
        ;;
    '--until')
        __ucube_add_completions -W 'today'$'\n''yesterday'
        return
        ;;
    esac
}

_ucube_locale() {
    repeating_flags=()
    non_repeating_flags=(--version -h --help)
    repeating_options=()
    non_repeating_options=()
    __ucube_offer_flags_options 0

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    get|set|list)
        # Offer subcommand argument completions
        "_ucube_locale_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'get set list' -- "${cur}"))
        ;;
    esac
}

_ucube_locale_get() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion locale get -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_locale_set() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion locale set -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_locale_list() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion locale list -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac

    # Offer subcommand / subcommand argument completions
    local -r subcommand="${unparsed_words[0]}"
    unset 'unparsed_words[0]'
    unparsed_words=("${unparsed_words[@]}")
    case "${subcommand}" in
    list|raw|cancel-all|rtc-get|rtc-set|repeat-last-message|get-status|get-info|set-info-prod|set-info-field|wait-card|wait-card-removal|card-send-apdu|card-power-off|magstripe-read|get-secured-tag|get-plain-tag|display-message|display-list-box|display-message-ki|display-message-ki-custom|power-off|enter-secure-session|exit-secure-session|get-key-info|export-public-key|import-public-key-cert|import-public-key-perso-cert|install-for-load-key|load-key|install-for-load|load|online-pin|simplified-online-pin|bank-parameters-download|bank-parameters-get|build-candidate-list|transaction-init|transaction-process|transaction-finalisation|nfc-start|nfc-complete)
        # Offer subcommand argument completions
        "_ucube_rpc_${subcommand}"
        ;;
    *)
        # Offer subcommand completions
        COMPREPLY+=($(compgen -W 'list raw cancel-all rtc-get rtc-set repeat-last-message get-status get-info set-info-prod set-info-field wait-card wait-card-removal card-send-apdu card-power-off magstripe-read get-secured-tag get-plain-tag display-message display-list-box display-message-ki display-message-ki-custom power-off enter-secure-session exit-secure-session get-key-info export-public-key import-public-key-cert import-public-key-perso-cert install-for-load-key load-key install-for-load load online-pin simplified-online-pin bank-parameters-download bank-parameters-get build-candidate-list transaction-init transaction-process transaction-finalisation nfc-start nfc-complete' -- "${cur}"))
        ;;
    esac
}

_ucube_rpc_list() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc list -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_raw() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --in-mode --out-mode)
    __ucube_offer_flags_options 2

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc raw -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--in-mode')
        __ucube_add_completions -W 'none'$'\n''signed-not-checked'$'\n''signed'$'\n''signed-ciphered'
        return
        ;;
    '--out-mode')
        __ucube_add_completions -W 'none'$'\n''signed-not-checked'$'\n''signed'$'\n''signed-ciphered'
        return
        ;;
    esac
}

_ucube_rpc_cancel-all() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc cancel-all -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_rtc-get() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc rtc-get -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_rtc-set() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc rtc-set -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_repeat-last-message() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc repeat-last-message -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_get-status() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc get-status -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_get-info() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc get-info -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_set-info-prod() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc set-info-prod -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_set-info-field() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --power-off-timeout --speed-mode --locale --tlv)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc set-info-field -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--power-off-timeout')
        return
        ;;
    '--speed-mode')
        __ucube_add_completions -W 'slow'$'\n''quick'
        return
        ;;
    '--locale')
        return
        ;;
    '--tlv')
        return
        ;;
    esac
}

_ucube_rpc_wait-card() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --readers --timeout)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc wait-card -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--readers')
        __ucube_add_completions -W 'icc'$'\n''nfc'$'\n''msr'
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_ucube_rpc_wait-card-removal() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --timeout)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc wait-card-removal -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_ucube_rpc_card-send-apdu() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc card-send-apdu -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_card-power-off() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc card-power-off -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_magstripe-read() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc magstripe-read -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_get-secured-tag() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc get-secured-tag -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_get-plain-tag() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc get-plain-tag -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_display-message() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --timeout --font --x --y --abort-keys --clear)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc display-message -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--timeout')
        return
        ;;
    '--font')
        return
        ;;
    '--x')
        return
        ;;
    '--y')
        return
        ;;
    '--abort-keys')
        return
        ;;
    '--clear')
        return
        ;;
    esac
}

_ucube_rpc_display-list-box() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --title --timeout)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc display-list-box -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--title')
        return
        ;;
    '--timeout')
        return
        ;;
    esac
}

_ucube_rpc_display-message-ki() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc display-message-ki -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_display-message-ki-custom() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc display-message-ki-custom -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_power-off() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc power-off -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_enter-secure-session() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc enter-secure-session -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_exit-secure-session() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc exit-secure-session -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_get-key-info() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc get-key-info -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_export-public-key() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc export-public-key -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_import-public-key-cert() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc import-public-key-cert -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_import-public-key-perso-cert() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc import-public-key-perso-cert -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_install-for-load-key() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc install-for-load-key -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_load-key() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc load-key -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_install-for-load() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --signature --method --session-key)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc install-for-load -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--signature')
        return
        ;;
    '--method')
        __ucube_add_completions -W 'sred'$'\n''dynamic'$'\n''plain'
        return
        ;;
    '--session-key')
        return
        ;;
    esac
}

_ucube_rpc_load() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --last --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --block)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc load -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--block')
        return
        ;;
    esac
}

_ucube_rpc_online-pin() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc online-pin -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_simplified-online-pin() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --amount --currency --pin-format --prompt --min-digits --max-digits --timeout --correction-key)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc simplified-online-pin -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--amount')
        return
        ;;
    '--currency')
        return
        ;;
    '--pin-format')
        __ucube_add_completions -W 'iso0'$'\n''iso1'$'\n''iso3'$'\n''iso4'
        return
        ;;
    '--prompt')
        return
        ;;
    '--min-digits')
        return
        ;;
    '--max-digits')
        return
        ;;
    '--timeout')
        return
        ;;
    '--correction-key')
        __ucube_add_completions -W 'erase-last-digit'$'\n''erase-all'
        return
        ;;
    esac
}

_ucube_rpc_bank-parameters-download() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc bank-parameters-download -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_bank-parameters-get() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc bank-parameters-get -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac
}

_ucube_rpc_build-candidate-list() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --max-applications)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc build-candidate-list -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--max-applications')
        return
        ;;
    esac
}

_ucube_rpc_transaction-init() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --tip --version -h --help)
    repeating_options=(--device --tags)
    non_repeating_options=(--record --rpc-timeout --log-level --aid --amount --currency --type --cashback --lang --date-time)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc transaction-init -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--aid')
        return
        ;;
    '--amount')
        return
        ;;
    '--currency')
        return
        ;;
    '--type')
        __ucube_add_completions -W 'purchase'$'\n''withdrawal'$'\n''purchase-cashback'$'\n''manual-cash'$'\n''refund'$'\n''inquiry'
        return
        ;;
    '--cashback')
        return
        ;;
    '--lang')
        return
        ;;
    '--date-time')
        return
        ;;
    '--tags')
        return
        ;;
    esac
}

_ucube_rpc_transaction-process() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device --tags)
    non_repeating_options=(--record --rpc-timeout --log-level --tvr --date-time --sequence-counter --app-version --tac-default --tac-denial --tac-online --pin-floor-limit --signature-floor-limit)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc transaction-process -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--tvr')
        return
        ;;
    '--date-time')
        return
        ;;
    '--sequence-counter')
        return
        ;;
    '--app-version')
        return
        ;;
    '--tac-default')
        return
        ;;
    '--tac-denial')
        return
        ;;
    '--tac-online')
        return
        ;;
    '--pin-floor-limit')
        return
        ;;
    '--signature-floor-limit')
        return
        ;;
    '--tags')
        return
        ;;
    esac
}

_ucube_rpc_transaction-finalisation() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device --tags)
    non_repeating_options=(--record --rpc-timeout --log-level --arc --auth-status --force --issuer-auth --script1 --script2)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc transaction-finalisation -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--arc')
        return
        ;;
    '--auth-status')
        __ucube_add_completions -W 'unable-to-go-online'$'\n''approved'$'\n''declined'
        return
        ;;
    '--force')
        __ucube_add_completions -W 'none'$'\n''after-authorisation'$'\n''voice-referral-accepted'$'\n''voice-referral-declined'
        return
        ;;
    '--issuer-auth')
        return
        ;;
    '--script1')
        return
        ;;
    '--script2')
        return
        ;;
    '--tags')
        return
        ;;
    esac
}

_ucube_rpc_nfc-start() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --force-online --amount-on-terminal --version -h --help)
    repeating_options=(--device --tags)
    non_repeating_options=(--record --rpc-timeout --log-level --amount --currency --type --cashback --readers --timeout --date-time)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc nfc-start -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--amount')
        return
        ;;
    '--currency')
        return
        ;;
    '--type')
        __ucube_add_completions -W 'purchase'$'\n''withdrawal'$'\n''purchase-cashback'$'\n''manual-cash'$'\n''refund'$'\n''inquiry'
        return
        ;;
    '--cashback')
        return
        ;;
    '--readers')
        __ucube_add_completions -W 'icc'$'\n''nfc'$'\n''msr'
        return
        ;;
    '--timeout')
        return
        ;;
    '--date-time')
        return
        ;;
    '--tags')
        return
        ;;
    esac
}

_ucube_rpc_nfc-complete() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device --tags)
    non_repeating_options=(--record --rpc-timeout --log-level --arc)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion rpc nfc-complete -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--arc')
        return
        ;;
    '--tags')
        return
        ;;
    esac
}

_ucube_decode() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --secured --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --as --context --handle)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion decode -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--as')
        __ucube_add_completions -W 'auto'$'\n''frame'$'\n''tlv'$'\n''status'$'\n''nfc-outcome'$'\n''btsnoop'
        return
        ;;
    '--context')
        __ucube_add_completions -W 'payment'$'\n''getinfo'
        return
        ;;
    '--handle')
        return
        ;;
    esac
}

_ucube_simulate() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --vendor-app --list-cards --print-env --version -h --help)
    repeating_options=(--device --host-fault --tms-name --fleet-fault)
    non_repeating_options=(--record --rpc-timeout --log-level --listen --min-answer-delay --tms --host --host-log --catalogue --seed --state-dir --link-model --codec --card --suite --suite-card --fault --keys --choices --tms-fault --tms-firmware-size --tms-certificate --tms-dialect --fleet --devices-file)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion simulate -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--listen')
        return
        ;;
    '--min-answer-delay')
        return
        ;;
    '--tms')
        return
        ;;
    '--host')
        return
        ;;
    '--host-log')
        __ucube_add_completions -f
        return
        ;;
    '--host-fault')
        return
        ;;
    '--catalogue')
        __ucube_add_completions -d
        return
        ;;
    '--seed')
        return
        ;;
    '--state-dir')
        return
        ;;
    '--link-model')
        __ucube_add_completions -W 'none'$'\n''ble'$'\n''classic'
        return
        ;;
    '--codec')
        __ucube_add_completions -W 'raw'$'\n''ble'
        return
        ;;
    '--card')
        __ucube_add_completions -W 'visa-contact'$'\n''mc-two-apps'$'\n''visa-offline-pin'$'\n''mc-online-pin'$'\n''visa-contactless'$'\n''mc-contactless-online'$'\n''mc-contactless-online-pin'$'\n''visa-contactless-declined'$'\n''visa-contactless-signature'$'\n''contactless-try-other'$'\n''contactless-end-application'$'\n''magstripe-chip-required'$'\n''no-common-app'$'\n''card-refused'$'\n''card-removed'$'\n''card-timeout'$'\n''declined-aac'$'\n''approved-offline-tc'$'\n''declines-second-ac'
        return
        ;;
    '--suite')
        __ucube_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    '--suite-card')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion simulate -- --suite-card "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--fault')
        return
        ;;
    '--keys')
        return
        ;;
    '--choices')
        return
        ;;
    '--tms-fault')
        return
        ;;
    '--tms-firmware-size')
        return
        ;;
    '--tms-certificate')
        __ucube_add_completions -W 'valid'$'\n''expired'$'\n''foreign'
        return
        ;;
    '--tms-name')
        return
        ;;
    '--tms-dialect')
        __ucube_add_completions -W 'both'$'\n''2020'$'\n''current'
        return
        ;;
    '--fleet')
        return
        ;;
    '--fleet-fault')
        return
        ;;
    '--devices-file')
        return
        ;;
    esac
}

_ucube_sim() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --all --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion sim -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __ucube_add_completions -W 'status'$'\n''card'$'\n''keys'$'\n''choices'$'\n''pin'$'\n''fault'$'\n''battery'$'\n''suite'$'\n''reset'
        return
        ;;
    *)
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion sim -- positional@1 "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    esac
}

_ucube_test() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --restart --unattended --version -h --help)
    repeating_options=(--device --case)
    non_repeating_options=(--record --rpc-timeout --log-level --devices --parallel --junit --max-failures --shard --shard-host --run-file --format --output --operator-timeout)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion test -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--devices')
        __ucube_add_completions -f
        return
        ;;
    '--parallel')
        return
        ;;
    '--junit')
        __ucube_add_completions -f
        return
        ;;
    '--max-failures')
        return
        ;;
    '--shard')
        return
        ;;
    '--shard-host')
        return
        ;;
    '--run-file')
        __ucube_add_completions -f
        return
        ;;
    '--format')
        __ucube_add_completions -W 'tap'$'\n''junit'
        return
        ;;
    '--output')
        return
        ;;
    '--case')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion test -- --case "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--operator-timeout')
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    1)
        __ucube_add_completions -o plusdirs -fX '!*.@(json)'
        return
        ;;
    esac
}

_ucube_shell() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --restart --keep-going --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --devices --parallel --junit --max-failures --shard --shard-host --run-file --script)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion shell -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--devices')
        __ucube_add_completions -f
        return
        ;;
    '--parallel')
        return
        ;;
    '--junit')
        __ucube_add_completions -f
        return
        ;;
    '--max-failures')
        return
        ;;
    '--shard')
        return
        ;;
    '--shard-host')
        return
        ;;
    '--run-file')
        __ucube_add_completions -f
        return
        ;;
    '--script')
        return
        ;;
    esac
}

_ucube_scan() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --all --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --timeout --name)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion scan -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--timeout')
        return
        ;;
    '--name')
        return
        ;;
    esac
}

_ucube_connect() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --list --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --timeout --tries --forget --authorize --authorize-ca)
    __ucube_offer_flags_options 1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion connect -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--timeout')
        return
        ;;
    '--tries')
        return
        ;;
    '--forget')
        return
        ;;
    '--authorize')
        return
        ;;
    '--authorize-ca')
        return
        ;;
    esac
}

_ucube_mdm-register() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --restart --status --unregister --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --tms --tms-ca --tms-timeout --devices --parallel --junit --max-failures --shard --shard-host --run-file)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion mdm-register -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--tms')
        return
        ;;
    '--tms-ca')
        __ucube_add_completions -f
        return
        ;;
    '--tms-timeout')
        return
        ;;
    '--devices')
        __ucube_add_completions -f
        return
        ;;
    '--parallel')
        return
        ;;
    '--junit')
        __ucube_add_completions -f
        return
        ;;
    '--max-failures')
        return
        ;;
    '--shard')
        return
        ;;
    '--shard-host')
        return
        ;;
    '--run-file')
        __ucube_add_completions -f
        return
        ;;
    esac
}

_ucube_mdm-update() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --restart --plan --all --force --firmware-only --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --tms --tms-ca --tms-timeout --devices --parallel --junit --max-failures --shard --shard-host --run-file --file --signature)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion mdm-update -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--tms')
        return
        ;;
    '--tms-ca')
        __ucube_add_completions -f
        return
        ;;
    '--tms-timeout')
        return
        ;;
    '--devices')
        __ucube_add_completions -f
        return
        ;;
    '--parallel')
        return
        ;;
    '--junit')
        __ucube_add_completions -f
        return
        ;;
    '--max-failures')
        return
        ;;
    '--shard')
        return
        ;;
    '--shard-host')
        return
        ;;
    '--run-file')
        __ucube_add_completions -f
        return
        ;;
    '--file')
        __ucube_add_completions -f
        return
        ;;
    '--signature')
        __ucube_add_completions -f
        return
        ;;
    esac
}

_ucube_fleet-merge() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --junit)
    __ucube_offer_flags_options -1

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion fleet-merge -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--junit')
        __ucube_add_completions -f
        return
        ;;
    esac

    # Offer positional completions
    case "${positional_number}" in
    *)
        __ucube_add_completions -f
        return
        ;;
    esac
}

_ucube_send-logs() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --restart --force --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --tms --tms-ca --tms-timeout --devices --parallel --junit --max-failures --shard --shard-host --run-file --output)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion send-logs -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--tms')
        return
        ;;
    '--tms-ca')
        __ucube_add_completions -f
        return
        ;;
    '--tms-timeout')
        return
        ;;
    '--devices')
        __ucube_add_completions -f
        return
        ;;
    '--parallel')
        return
        ;;
    '--junit')
        __ucube_add_completions -f
        return
        ;;
    '--max-failures')
        return
        ;;
    '--shard')
        return
        ;;
    '--shard-host')
        return
        ;;
    '--run-file')
        __ucube_add_completions -f
        return
        ;;
    '--output')
        __ucube_add_completions -o plusdirs -fX '!*.@(zip)'
        return
        ;;
    esac
}

_ucube_diagnose() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --version -h --help)
    repeating_options=(--device)
    non_repeating_options=(--record --rpc-timeout --log-level --tms --tms-ca --tms-timeout --devices --parallel --junit --max-failures --shard --shard-host)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion diagnose -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--tms')
        return
        ;;
    '--tms-ca')
        __ucube_add_completions -f
        return
        ;;
    '--tms-timeout')
        return
        ;;
    '--devices')
        __ucube_add_completions -f
        return
        ;;
    '--parallel')
        return
        ;;
    '--junit')
        __ucube_add_completions -f
        return
        ;;
    '--max-failures')
        return
        ;;
    '--shard')
        return
        ;;
    '--shard-host')
        return
        ;;
    esac
}

_ucube_serve() {
    repeating_flags=()
    non_repeating_flags=(--json --trace --fast -q --quiet -v --verbose --pair --version -h --help)
    repeating_options=(--device --allow-origin)
    non_repeating_options=(--record --rpc-timeout --log-level --listen --authorize --authorize-ca --authorize-cert --authorize-key --authorize-token-file --authorize-timeout)
    __ucube_offer_flags_options 0

    # Offer option value completions
    case "${prev}" in
    '--device')
        __ucube_add_completions -W "$(__ucube_custom_complete ---completion serve -- --device "${COMP_CWORD}" "$(__ucube_cursor_index_in_current_word)")"
        return
        ;;
    '--record')
        return
        ;;
    '--rpc-timeout')
        return
        ;;
    '--log-level')
        return
        ;;
    '--listen')
        return
        ;;
    '--allow-origin')
        return
        ;;
    '--authorize')
        return
        ;;
    '--authorize-ca')
        return
        ;;
    '--authorize-cert')
        return
        ;;
    '--authorize-key')
        return
        ;;
    '--authorize-token-file')
        return
        ;;
    '--authorize-timeout')
        return
        ;;
    esac
}

_ucube_help() {
    repeating_flags=()
    non_repeating_flags=(--version)
    repeating_options=()
    non_repeating_options=()
    __ucube_offer_flags_options -1
}

complete -o filenames -F _ucube ucube
